package org.kvstore.wal;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.kvstore.CorruptionException;
import org.kvstore.RecoveryMode;
import org.kvstore.io.LocalFileSystem;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kvstore-check}: reports the state of a write-ahead-log directory the way opening the store
 * would see it, like {@code redis-check-aof}: the segments, the valid records, where the valid
 * prefix ends ({@code ok_up_to}) and how many bytes follow it ({@code diff}); with {@code --fix},
 * cuts a torn tail as the open would.
 *
 * <pre>
 * java -cp kvstore-server/target/kvstore-server.jar org.kvstore.wal.WalCheck data/wal [--mode strict] [--fix]
 * </pre>
 *
 * Exit codes: 0 the log opens in the mode, 1 it does not (the reason is printed), 2 bad usage.
 */
@Command(name = "kvstore-check", mixinStandardHelpOptions = true,
    description = "Checks a KVStore write-ahead-log directory (for example data/wal).")
public final class WalCheck implements Callable<Integer> {
  @Parameters(index = "0", description = "the log directory")
  private Path dir;

  @Option(names = "--mode", description = "recovery mode: point-in-time (default), strict, salvage",
      converter = ModeConverter.class)
  private RecoveryMode mode = RecoveryMode.POINT_IN_TIME;

  @Option(names = "--fix", description = "cut a torn tail, as opening the store would")
  private boolean fix;

  private PrintWriter out;

  public static void main(String[] args) {
    CommandLine cmd = new CommandLine(new WalCheck());
    System.exit(cmd.execute(args));
  }

  /** Runs the check printing to {@code out}; returns the exit code. */
  public static int run(PrintWriter out, String... args) {
    WalCheck check = new WalCheck();
    check.out = out;
    CommandLine cmd = new CommandLine(check);
    cmd.setOut(out);
    cmd.setErr(out);
    return cmd.execute(args);
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter w = out != null ? out : new PrintWriter(System.out, true);
    try {
      WalRecovery.Result r = WalRecovery.replay(LocalFileSystem.INSTANCE, dir, mode, record -> {});
      for (var s : r.segments().entrySet()) {
        w.println(dir.resolve(WalFormat.segmentName(s.getKey())) + ": first LSN " + s.getValue());
      }
      long diff = r.tailCut() == null ? 0 : r.tailCut().droppedBytes();
      w.println("records=" + r.records() + " last_lsn=" + r.lastLsn() + " ok_up_to=" + r.okUpTo()
          + " ok_up_to_record=" + r.records() + " diff=" + diff + " skipped=" + r.skipped());
      for (String p : r.problems()) {
        w.println("problem: " + p);
      }
      if (r.tailCut() != null) {
        if (fix) {
          WalRecovery.cutTail(LocalFileSystem.INSTANCE, r);
          w.println("fixed: cut " + r.tailCut().segment() + " to " + r.tailCut().offset() + " bytes");
        } else {
          w.println("status: torn tail of " + diff + " bytes at " + r.tailCut().segment() + " offset "
              + r.tailCut().offset() + " (" + r.tailCut().reason() + "); opening cuts it, or run with --fix");
        }
      } else {
        w.println("status: ok");
      }
      w.flush();
      return 0;
    } catch (CorruptionException e) {
      w.println("status: corrupt: " + e.getMessage());
      w.flush();
      return 1;
    }
  }

  /** Parses the recovery mode option. */
  static final class ModeConverter implements CommandLine.ITypeConverter<RecoveryMode> {
    @Override
    public RecoveryMode convert(String value) {
      return RecoveryMode.parse(value);
    }
  }
}
