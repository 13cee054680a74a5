package org.kvstore.server;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.kvstore.CorruptionException;
import org.kvstore.KVStoreException;
import org.kvstore.LogCheck;
import org.kvstore.RecoveryMode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The {@code kvstore-check} tool: prints what {@link LogCheck} finds in a write-ahead-log directory,
 * like {@code redis-check-aof}: the segments, the valid records and their mutations (puts with and
 * without expiry, removes), where the valid prefix ends ({@code ok_up_to}) and how many bytes follow
 * it ({@code diff}); with {@code --fix}, cuts a torn tail as opening the store would.
 *
 * <pre>
 * java -cp kvstore-server/target/kvstore-server.jar org.kvstore.server.CheckMain data/wal [--mode strict] [--fix]
 * </pre>
 *
 * Exit codes: 0 the log opens in the mode, 1 it does not or cannot be read (the reason is printed),
 * 2 bad usage. Besides {@link ServerMain}, the only class that calls {@code System.exit}.
 *
 * <p>Thread safety: used by the main thread only.
 */
@Command(name = "kvstore-check", mixinStandardHelpOptions = true,
    description = "Checks a KVStore write-ahead-log directory (for example data/wal).")
public final class CheckMain implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "the log directory")
  private Path dir;

  @Option(names = "--mode", paramLabel = "MODE", description = "recovery mode: point-in-time (default), strict, salvage",
      converter = ModeConverter.class)
  private RecoveryMode mode = RecoveryMode.POINT_IN_TIME;

  @Option(names = "--fix", description = "cut a torn tail, as opening the store would")
  private boolean fix;

  @Spec private CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(new PrintWriter(System.out, true), args));
  }

  /** Runs the tool with {@code args}, printing to {@code out}; returns the exit code. */
  public static int run(PrintWriter out, String... args) {
    CommandLine cmd = new CommandLine(new CheckMain());
    cmd.setOut(out);
    cmd.setErr(out);
    int code = cmd.execute(args);
    out.flush();
    return code;
  }

  @Override
  public Integer call() {
    PrintWriter w = spec.commandLine().getOut();
    try {
      LogCheck.Report r = LogCheck.check(dir, mode, fix);
      for (LogCheck.Segment s : r.segments()) {
        w.println(s.file() + ": first LSN " + s.firstLsn() + ", format version " + s.version());
      }
      w.println("records=" + r.records() + " last_lsn=" + r.lastLsn() + " ok_up_to=" + r.okUpTo()
          + " ok_up_to_record=" + r.records() + " diff=" + r.diff() + " skipped=" + r.skipped());
      LogCheck.Mutations m = r.mutations();
      w.println("puts=" + m.puts() + " expiring_puts=" + m.expiringPuts() + " expired_now=" + m.expiredAtCheck()
          + " latest_expiry=" + m.latestExpiresAt() + " removes=" + m.removes());
      for (String p : r.problems()) {
        w.println("problem: " + p);
      }
      LogCheck.TornTail torn = r.tornTail();
      if (torn == null) {
        w.println("status: ok");
      } else if (r.fixed()) {
        w.println("fixed: cut " + torn.segment() + " to " + torn.offset() + " bytes");
      } else {
        w.println("status: torn tail of " + torn.droppedBytes() + " bytes at " + torn.segment() + " offset "
            + torn.offset() + " (" + torn.reason() + "); opening cuts it, or run with --fix");
      }
      return 0;
    } catch (CorruptionException e) {
      w.println("status: corrupt: " + e.getMessage());
      return 1;
    } catch (KVStoreException e) {
      w.println("kvstore-check: " + e.getMessage());
      return 1;
    }
  }

  /** Parses the recovery mode option. Thread safety: stateless. */
  static final class ModeConverter implements CommandLine.ITypeConverter<RecoveryMode> {
    @Override
    public RecoveryMode convert(String value) {
      return RecoveryMode.parse(value);
    }
  }
}
