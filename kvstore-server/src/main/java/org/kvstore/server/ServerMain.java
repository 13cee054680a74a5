package org.kvstore.server;

import io.netty.util.ResourceLeakDetector;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.kvstore.KVStoreException;
import org.kvstore.server.warmup.ServerWarmup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The {@code kvstore-server} command: parses flags (and a {@code --config} file), starts a
 * {@link KVStoreServer}, and runs until SIGTERM or SIGINT, then shuts down cleanly and exits 0.
 * A start-up failure prints one line ({@code kvstore-server: <reason>}) on stderr and exits 1.
 *
 * <p>This and {@link CheckMain} are the only classes that call {@code System.exit}.
 *
 * <p>Thread safety: used by the main thread only.
 */
@Command(
    name = "kvstore-server",
    versionProvider = ServerMain.Version.class,
    sortOptions = false,
    description = "Serves a KVStore data directory over the Redis protocol (RESP2/RESP3).",
    footer = "%nEvery flag can also be set in the --config file under the same name without '--'"
        + " (YAML: 'resp-port: 6380'; properties: 'resp-port=6380'). Flags win over the file.")
public final class ServerMain implements Callable<Integer> {

  @Option(names = "--config", paramLabel = "FILE", description = "YAML (.yaml/.yml) or .properties file with settings")
  private Path configFile;

  /** Filled by picocli: the options of {@link ServerConfig#SETTINGS}, which {@link #commandLine} adds. */
  @Spec private CommandSpec spec;

  private volatile KVStoreServer running;
  private final CountDownLatch stop = new CountDownLatch(1);

  public static void main(String[] args) {
    // Netty's leak detector records a stack trace for a sample of buffer allocations (1 in 128 at
    // its default level), CPU the event loops need (docs/decisions/0022-netty-leak-detector-off.md).
    // The tests, which start the server in-process, keep the default level;
    // -Dio.netty.leakDetection.level still sets it here.
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
    CommandLine cli = commandLine(new ServerMain());
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("kvstore-server: " + oneLine(e));
      return 1;
    });
    cli.setParameterExceptionHandler((e, args1) -> {
      e.getCommandLine().getErr().println("kvstore-server: " + e.getMessage());
      e.getCommandLine().getErr().println("Try 'kvstore-server --help' for the options.");
      return 1;
    });
    System.exit(cli.execute(args));
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.toString() : e.getMessage();
    return m.replace('\n', ' ').replace('\r', ' ');
  }

  /**
   * The command line of {@code main}: {@code --config}, one option per {@link Setting} of
   * {@link ServerConfig#SETTINGS}, named, labelled and described by it, {@code --help} and
   * {@code --version}. The options take text; {@link #config()} parses and validates it through the settings.
   */
  static CommandLine commandLine(ServerMain main) {
    CommandLine cli = new CommandLine(main);
    CommandSpec spec = cli.getCommandSpec();
    for (Setting<?> s : ServerConfig.SETTINGS) {
      spec.addOption(OptionSpec.builder(s.flag())
          .paramLabel(s.paramLabel())
          .type(String.class)
          .description(s.help() + " (default: " + s.defaultText() + ")")
          .build());
    }
    // After the settings, so --help lists them right below --config.
    spec.addOption(OptionSpec.builder("-h", "--help").type(boolean.class).usageHelp(true)
        .description("Show this help message and exit.").build());
    spec.addOption(OptionSpec.builder("-V", "--version").type(boolean.class).versionHelp(true)
        .description("Print version information and exit.").build());
    return cli;
  }

  /** The configuration from defaults, the file and the flags. */
  ServerConfig config() {
    ServerConfig.Builder b = ServerConfig.builder();
    if (configFile != null) {
      b.setAll(ServerConfig.readFile(configFile), configFile.toString());
    }
    for (Setting<?> s : ServerConfig.SETTINGS) {
      OptionSpec option = spec.findOption(s.flag());
      String value = option == null ? null : option.getValue();
      if (value != null) {
        try {
          b.set(s.key(), value);
        } catch (KVStoreException ex) {
          throw new KVStoreException(s.flag() + ": " + ex.getMessage());
        }
      }
    }
    return b.build();
  }

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig config = config();
    // Before the first logger is created: logback.xml reads the level from this property.
    System.setProperty("kvstore.log.level", config.logLevel().toUpperCase(java.util.Locale.ROOT));
    Logger log = LoggerFactory.getLogger(ServerMain.class);
    installSignalHandlers(log);
    // The warm-up runs once the store is open and before the ports are bound; a stop asked for
    // meanwhile ends it early.
    running = KVStoreServer.start(config, () -> ServerWarmup.run(config, () -> stop.getCount() == 0));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      // Other ways out (SIGHUP, System.exit elsewhere): still close the store cleanly.
      stop.countDown();
      closeQuietly(log);
    }, "kv-shutdown"));
    stop.await();
    closeQuietly(log);
    return 0;
  }

  private void closeQuietly(Logger log) {
    KVStoreServer s = running;
    if (s != null) {
      try {
        s.close();
      } catch (KVStoreException e) {
        log.error("shutdown: {}", e.getMessage());
      }
    }
  }

  /**
   * SIGTERM and SIGINT only release the main thread, which shuts down and returns 0; the JVM's
   * default handlers would exit with 143/130 instead.
   */
  @SuppressWarnings("restriction")
  private void installSignalHandlers(Logger log) {
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> {
          log.info("received SIG{}", sig.getName());
          stop.countDown();
        });
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        log.debug("cannot handle SIG{}: {}", name, e.getMessage());
      }
    }
  }

  /** Version for --version. Thread safety: stateless. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"kvstore-server " + KVStoreServer.version()};
    }
  }
}
