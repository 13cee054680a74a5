package org.kvstore.bench.load.cli;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code bin/kvstore-bench}: the load generator. Each subcommand runs one declared workload or one
 * seed's experiment and writes CSV, JSON, PNG/SVG plots and a Markdown report under
 * {@code kvstore-bench/results/<date>-<name>/}.
 *
 * <p>Thread safety: one command per instance.
 */
@Command(name = "kvstore-bench", mixinStandardHelpOptions = true, versionProvider = LoadMain.Version.class,
    description = "Load generator for KVStore, RocksDB, Redis and kvstore-server (RESP, HTTP, Thrift).",
    subcommands = {RunCommand.class, YcsbCommand.class, KeksDbCommand.class, ToyStoreCommand.class,
        BlitzDbCommand.class, BlinkDbCommand.class, Cs739Command.class, CommandLine.HelpCommand.class},
    footer = "%nEvery subcommand takes --help. Example: kvstore-bench keksdb --scale 0.01 --threads 1,4,16")
public final class LoadMain implements Runnable {
  private String command = "kvstore-bench";

  @CommandLine.Spec
  private CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs one command line and returns its exit code (0: the report was written). */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    LoadMain main = new LoadMain();
    main.command = "bin/kvstore-bench " + Arrays.stream(args).map(LoadMain::quote).collect(Collectors.joining(" "));
    CommandLine cli = new CommandLine(main);
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("kvstore-bench: " + e);
      for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
        commandLine.getErr().println("  caused by: " + c);
      }
      return 1;
    });
    return cli.execute(args);
  }

  /** The command line as typed, for the report. */
  String command() {
    return command;
  }

  private static String quote(String arg) {
    return arg.matches("[A-Za-z0-9_./:=,+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The version of the jar. Thread safety: stateless. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = LoadMain.class.getPackage().getImplementationVersion();
      return new String[] {"kvstore-bench " + (v == null ? "(development build)" : v)};
    }
  }
}
