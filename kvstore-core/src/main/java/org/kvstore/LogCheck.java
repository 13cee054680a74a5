package org.kvstore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.Mutation;
import org.kvstore.wal.WalFormat;
import org.kvstore.wal.WalRecovery;

/**
 * Checks a store's write-ahead-log directory (for example {@code data/wal}) the way opening the
 * store would see it, without opening the store, like {@code redis-check-aof}: the segments and their
 * format versions, the valid records and what their mutations are (puts with and without expiry,
 * removes), where the valid prefix ends and how many bytes follow it; optionally cuts a torn tail as
 * the open would. Every record is decoded as the open decodes it, so a mutation its segment's
 * version does not have, or a put whose expiry is truncated or 0, is damage here too. The {@code kvstore-check} tool of the server module prints the
 * {@link Report}; this class only checks.
 *
 * <p>Thread safety: stateless; do not check a log a running store is writing.
 */
public final class LogCheck {
  private LogCheck() {}

  /**
   * A segment file of the log, the LSN of its first record and the format version of its header
   * (docs/format/wal.md); version 0 when the header could not be read (salvage reads on).
   */
  public record Segment(Path file, long firstLsn, int version) {}

  /**
   * What the valid records change.
   *
   * @param puts puts without expiry
   * @param expiringPuts puts with an expiry (format version 2 on)
   * @param removes removes
   * @param expiredAtCheck expiring puts whose expiry had passed at the check's clock: replaying them
   *     gives entries that reads do not see
   * @param latestExpiresAt the latest expiry of any put, milliseconds since the epoch, or
   *     {@link Entry#NO_EXPIRY} when no put has one
   */
  public record Mutations(long puts, long expiringPuts, long removes, long expiredAtCheck, long latestExpiresAt) {}

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
   * @param mutations what the valid records change
   * @param lastLsn the LSN of the last valid record (0 when there is none)
   * @param okUpTo offset of the end of the last valid record in the last segment read
   * @param skipped records skipped as damaged (salvage mode only)
   * @param problems damage the mode tolerated, one line each
   * @param tornTail the torn tail an open would cut, or null
   * @param fixed whether the torn tail was cut (only when asked and there was one)
   */
  public record Report(List<Segment> segments, long records, Mutations mutations, long lastLsn, long okUpTo, long skipped,
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

  /** {@link #check(Path, RecoveryMode, boolean, Clock)} judging expiries by the system clock. */
  public static Report check(Path dir, RecoveryMode mode, boolean fix) {
    return check(dir, mode, fix, Clock.systemUTC());
  }

  /**
   * Checks the log in {@code dir} as an open in {@code mode} would; with {@code fix}, cuts a torn
   * tail as the open would, durably. Expiries are judged at {@code clock}'s current time.
   *
   * @throws InvalidArgumentException if {@code dir} is not a directory (a mistyped path must not
   *     read as an empty, intact log)
   * @throws CorruptionException naming the file, offset and reason when the log does not open in
   *     {@code mode}
   * @throws StorageIOException if the directory cannot be read or the cut fails
   */
  public static Report check(Path dir, RecoveryMode mode, boolean fix, Clock clock) {
    if (!Files.isDirectory(dir)) {
      throw new InvalidArgumentException("log directory", dir + " is not a directory");
    }
    try {
      MutationTally tally = new MutationTally(clock.millis());
      WalRecovery.Result r = WalRecovery.replay(LocalFileSystem.INSTANCE, dir, mode, record -> {
        for (Mutation m : record.mutations()) {
          tally.add(m);
        }
      });
      List<Segment> segments = new ArrayList<>();
      for (Map.Entry<Long, Long> s : r.segments().entrySet()) {
        segments.add(new Segment(dir.resolve(WalFormat.segmentName(s.getKey())), s.getValue(),
            r.segmentVersions().getOrDefault(s.getKey(), 0)));
      }
      WalRecovery.TailCut cut = r.tailCut();
      TornTail torn = cut == null ? null : new TornTail(cut.segment(), cut.offset(), cut.droppedBytes(), cut.reason());
      boolean fixed = false;
      if (fix && cut != null) {
        WalRecovery.cutTail(LocalFileSystem.INSTANCE, r);
        fixed = true;
      }
      return new Report(segments, r.records(), tally.result(), r.lastLsn(), r.okUpTo(), r.skipped(), r.problems(), torn, fixed);
    } catch (IOException e) {
      throw new StorageIOException(dir, "check the log", e);
    }
  }

  /** Counts the mutations of the valid records. Thread safety: confined. */
  private static final class MutationTally {
    private final long nowMillis;
    private long puts;
    private long expiringPuts;
    private long removes;
    private long expired;
    private long latestExpiresAt = Entry.NO_EXPIRY;

    MutationTally(long nowMillis) {
      this.nowMillis = nowMillis;
    }

    void add(Mutation m) {
      if (m.isRemove()) {
        removes++;
      } else if (m.expiresAt() == Entry.NO_EXPIRY) {
        puts++;
      } else {
        expiringPuts++;
        if (Entry.isExpired(m.expiresAt(), nowMillis)) {
          expired++;
        }
        latestExpiresAt = latestExpiresAt == Entry.NO_EXPIRY ? m.expiresAt() : Math.max(latestExpiresAt, m.expiresAt());
      }
    }

    Mutations result() {
      return new Mutations(puts, expiringPuts, removes, expired, latestExpiresAt);
    }
  }
}
