package org.kvstore.wal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.kvstore.CorruptionException;
import org.kvstore.RecoveryMode;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a log directory from its oldest segment to its end, hands every valid record of writes to a
 * consumer in LSN order, and decides what damage means under a {@link RecoveryMode}
 * (docs/durability.md, "Recovery"):
 *
 * <ul>
 *   <li>damage at the end of the newest segment with nothing valid after it is a torn tail: in
 *       {@code point-in-time} and {@code salvage} it is cut off ({@link Result#tailCut()});
 *   <li>damage followed by valid records (a hole), damage in an older segment, or a missing
 *       segment fails {@code point-in-time};
 *   <li>{@code strict} fails on any damage; {@code salvage} skips damaged records and counts them.
 * </ul>
 *
 * Nothing is changed on disk here: {@link #cutTail(FileSystem, Result)} applies the cut once the
 * caller has accepted the result.
 *
 * <p>Thread safety: stateless.
 */
public final class WalRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(WalRecovery.class);

  private WalRecovery() {}

  /** Receives the records of writes in LSN order. */
  @FunctionalInterface
  public interface RecordConsumer {
    void accept(WalFormat.WriteRecord record) throws IOException;
  }

  /** A place where the log is cut: the newest segment is truncated to {@code offset}. */
  public record TailCut(Path segment, long offset, long droppedBytes, String reason) {}

  /**
   * What recovery found.
   *
   * @param segments segment number to its first LSN, in order
   * @param segmentVersions segment number to the format version of its header, for the segments whose
   *     header could be read
   * @param records valid records of writes read
   * @param lastLsn the LSN of the last valid record (0 when there is none)
   * @param tailCut the torn tail to cut, or {@code null}
   * @param skipped records skipped as damaged (salvage only)
   * @param okUpTo offset of the end of the last valid record in the last segment read
   */
  public record Result(
      TreeMap<Long, Long> segments, TreeMap<Long, Integer> segmentVersions, long records, long lastLsn, TailCut tailCut, long skipped, List<String> problems, long okUpTo) {}

  /**
   * Reads {@code dir} and feeds {@code consumer}.
   *
   * @throws CorruptionException naming the file and offset when the mode forbids the damage found
   */
  public static Result replay(FileSystem fs, Path dir, RecoveryMode mode, RecordConsumer consumer) throws IOException {
    TreeMap<Long, String> files = new TreeMap<>();
    for (String name : fs.list(dir)) {
      long n = WalFormat.segmentNumber(name);
      if (n >= 0) {
        files.put(n, name);
      }
    }
    TreeMap<Long, Long> segments = new TreeMap<>();
    TreeMap<Long, Integer> segmentVersions = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    long records = 0;
    long skipped = 0;
    long lastLsn = 0;
    long okUpTo = 0;
    TailCut cut = null;
    Long previous = null;
    for (var entry : files.entrySet()) {
      long number = entry.getKey();
      Path path = dir.resolve(entry.getValue());
      boolean newest = number == files.lastKey();
      if (previous != null && number != previous + 1) {
        String p = "segment " + WalFormat.segmentName(previous + 1) + " is missing (next is " + path + ")";
        if (mode != RecoveryMode.SALVAGE) {
          throw new CorruptionException(dir.resolve(WalFormat.segmentName(previous + 1)), -1, p);
        }
        problems.add(p);
      }
      previous = number;
      try (StorageFile f = fs.open(path, FileSystem.OpenMode.READ)) {
        WalReader reader = new WalReader(f);
        WalReader.Item item = reader.next();
        long firstLsn = lastLsn + 1;
        // Without a readable header (damage salvage reads past), records are read as the newest version.
        int version = WalFormat.VERSION;
        okUpTo = 0;
        if (item.kind() == WalReader.Kind.SEGMENT_HEADER) {
          WalFormat.SegmentHeader h;
          try {
            h = WalFormat.decodeSegmentHeader(item.payload());
          } catch (IllegalArgumentException e) {
            throw new CorruptionException(path, 0, "bad segment header: " + e.getMessage());
          }
          if (h.version() < 1 || h.version() > WalFormat.VERSION) {
            throw new CorruptionException(path, 0, "log format version " + h.version() + " is not supported (this build reads 1 to " + WalFormat.VERSION + ")");
          }
          if (h.segmentNumber() != number) {
            throw new CorruptionException(path, 0, "segment header says number " + h.segmentNumber());
          }
          firstLsn = h.firstLsn();
          version = h.version();
          segmentVersions.put(number, version);
          okUpTo = item.end();
          item = reader.next();
        } else if (item.kind() != WalReader.Kind.END || !newest) {
          // A segment must open with its header; an empty newest segment is a crash right after creating it.
          item = new WalReader.Item(WalReader.Kind.DAMAGE, 0, 0, null,
              item.kind() == WalReader.Kind.END ? "empty segment" : "segment does not start with its header");
        }
        segments.put(number, firstLsn);
        while (item.kind() != WalReader.Kind.END) {
          if (item.kind() == WalReader.Kind.RECORD) {
            WalFormat.WriteRecord r;
            try {
              r = WalFormat.decodeWrites(item.payload(), version);
            } catch (IllegalArgumentException e) {
              item = new WalReader.Item(WalReader.Kind.DAMAGE, item.offset(), item.end(), null, "bad record: " + e.getMessage());
              continue;
            }
            if (r.lsn() <= lastLsn) {
              item = new WalReader.Item(WalReader.Kind.DAMAGE, item.offset(), item.end(), null,
                  "record LSN " + r.lsn() + " is not above the previous " + lastLsn);
              continue;
            }
            consumer.accept(r);
            records++;
            lastLsn = r.lsn();
            okUpTo = item.end();
          } else if (item.kind() == WalReader.Kind.DAMAGE) {
            String where = path + " offset " + item.offset() + ": " + item.reason();
            if (mode == RecoveryMode.SALVAGE) {
              problems.add(where);
              skipped++;
            } else {
              int following = countValidAfter(reader, version) + (newest ? 0 : 1);
              if (mode == RecoveryMode.STRICT) {
                throw new CorruptionException(path, item.offset(), item.reason() + " (strict recovery)");
              }
              if (following > 0 || !newest) {
                throw new CorruptionException(path, item.offset(), item.reason()
                    + (newest ? "; hole: " + following + " valid records follow" : "; the damaged segment is not the last")
                    + " (open with recovery mode salvage to skip damaged records)");
              }
              long dropped = reader.fileSize() - item.offset();
              cut = new TailCut(path, item.offset(), dropped, item.reason());
              problems.add(where);
              break;
            }
          }
          item = reader.next();
        }
        if (mode == RecoveryMode.SALVAGE && newest && okUpTo < reader.fileSize() && cut == null) {
          // Salvage leaves the newest segment ending at its last valid record, so appends follow valid data.
          cut = new TailCut(path, okUpTo, reader.fileSize() - okUpTo, "damaged tail");
        }
      }
    }
    return new Result(segments, segmentVersions, records, lastLsn, cut, skipped, problems, okUpTo);
  }

  private static int countValidAfter(WalReader reader, int version) throws IOException {
    int n = 0;
    for (WalReader.Item i = reader.next(); i.kind() != WalReader.Kind.END; i = reader.next()) {
      if (i.kind() == WalReader.Kind.RECORD) {
        try {
          WalFormat.decodeWrites(i.payload(), version);
          n++;
        } catch (IllegalArgumentException ignored) {
          // damaged payload: not a valid record
        }
      } else if (i.kind() == WalReader.Kind.SEGMENT_HEADER) {
        n++;
      }
    }
    return n;
  }

  /** Cuts the torn tail found by {@link #replay} and makes the cut durable. */
  public static void cutTail(FileSystem fs, Result result) throws IOException {
    TailCut cut = result.tailCut();
    if (cut == null) {
      return;
    }
    try (StorageFile f = fs.open(cut.segment(), FileSystem.OpenMode.READ_WRITE)) {
      f.truncate(cut.offset());
      f.sync();
    }
    LOG.warn("{}: dropped {} bytes at offset {}: {}", cut.segment(), cut.droppedBytes(), cut.offset(), cut.reason());
  }
}
