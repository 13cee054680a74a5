package org.kvstore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.wal.WalFormat;
import org.kvstore.wal.WalRecovery;

/**
 * Checks a store's write-ahead-log directory (for example {@code data/wal}) the way opening the
 * store would see it, without opening the store, like {@code redis-check-aof}: the segments, the
 * valid records, where the valid prefix ends and how many bytes follow it; optionally cuts a torn
 * tail as the open would. The {@code kvstore-check} tool of the server module prints the
 * {@link Report}; this class only checks.
 *
 * <p>Thread safety: stateless; do not check a log a running store is writing.
 */
public final class LogCheck {
  private LogCheck() {}

  /** A segment file of the log and the LSN of its first record. */
  public record Segment(Path file, long firstLsn) {}

  /**
   * A torn tail of the newest segment: the open cuts it to {@code offset}, dropping
   * {@code droppedBytes}.
   */
  public record TornTail(Path segment, long offset, long droppedBytes, String reason) {}

  /**
   * What the check found.
   *
   * @param segments the segments, in order
   * @param records valid records of writes
   * @param lastLsn the LSN of the last valid record (0 when there is none)
   * @param okUpTo offset of the end of the last valid record in the last segment read
   * @param skipped records skipped as damaged (salvage mode only)
   * @param problems damage the mode tolerated, one line each
   * @param tornTail the torn tail an open would cut, or null
   * @param fixed whether the torn tail was cut (only when asked and there was one)
   */
  public record Report(List<Segment> segments, long records, long lastLsn, long okUpTo, long skipped,
      List<String> problems, TornTail tornTail, boolean fixed) {
    public Report {
      segments = List.copyOf(segments);
      problems = List.copyOf(problems);
    }

    /** Bytes after the valid prefix (0 without a torn tail). */
    public long diff() {
      return tornTail == null ? 0 : tornTail.droppedBytes();
    }
  }

  /**
   * Checks the log in {@code dir} as an open in {@code mode} would; with {@code fix}, cuts a torn
   * tail as the open would, durably.
   *
   * @throws InvalidArgumentException if {@code dir} is not a directory (a mistyped path must not
   *     read as an empty, intact log)
   * @throws CorruptionException naming the file, offset and reason when the log does not open in
   *     {@code mode}
   * @throws StorageIOException if the directory cannot be read or the cut fails
   */
  public static Report check(Path dir, RecoveryMode mode, boolean fix) {
    if (!Files.isDirectory(dir)) {
      throw new InvalidArgumentException("log directory", dir + " is not a directory");
    }
    try {
      WalRecovery.Result r = WalRecovery.replay(LocalFileSystem.INSTANCE, dir, mode, record -> {});
      List<Segment> segments = new ArrayList<>();
      for (Map.Entry<Long, Long> s : r.segments().entrySet()) {
        segments.add(new Segment(dir.resolve(WalFormat.segmentName(s.getKey())), s.getValue()));
      }
      WalRecovery.TailCut cut = r.tailCut();
      TornTail torn = cut == null ? null : new TornTail(cut.segment(), cut.offset(), cut.droppedBytes(), cut.reason());
      boolean fixed = false;
      if (fix && cut != null) {
        WalRecovery.cutTail(LocalFileSystem.INSTANCE, r);
        fixed = true;
      }
      return new Report(segments, r.records(), r.lastLsn(), r.okUpTo(), r.skipped(), r.problems(), torn, fixed);
    } catch (IOException e) {
      throw new StorageIOException(dir, "check the log", e);
    }
  }
}
