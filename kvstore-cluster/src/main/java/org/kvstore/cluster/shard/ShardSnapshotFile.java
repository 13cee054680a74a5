package org.kvstore.cluster.shard;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.kvstore.CorruptionException;
import org.kvstore.codec.Crc32c;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;

/**
 * The (term, index) stamp of a shard's latest snapshot: the Raft log position up to which every
 * table of the shard has persisted state. Format: docs/format/shard-snapshot.md (the source of
 * truth; {@code ShardSnapshotFileTest} checks the golden file {@code golden/shard-snapshot-v1.bin}).
 *
 * <p>Written to a temporary file, fsynced, renamed over the old one and the directory fsynced: a
 * crash leaves the old stamp or the new one, never a mix. Reads and writes go through the store's
 * {@link FileSystem}, so tests can inject faults.
 *
 * <p>Thread safety: stateless.
 */
public final class ShardSnapshotFile {
  public static final String NAME = "shard-snapshot";
  static final String TMP_SUFFIX = ".tmp";
  public static final int VERSION = 1;
  public static final int BYTES = 8 + 4 + 8 + 8 + 4;

  /** A (term, index) log position. */
  public record Stamp(long term, long index) {}

  private ShardSnapshotFile() {}

  static final byte[] MAGIC_BYTES = {'K', 'V', 'S', 'H', 'S', 'N', 'A', 'P'};

  public static byte[] encode(Stamp s) {
    ByteBuffer b = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC_BYTES).putInt(VERSION).putLong(s.term()).putLong(s.index());
    b.putInt(Crc32c.of(b.array(), 0, BYTES - 4));
    return b.array();
  }

  /** @throws CorruptionException naming {@code file} for a bad magic, version, length or checksum */
  public static Stamp decode(Path file, byte[] bytes) {
    if (bytes.length != BYTES) {
      throw wrongLength(file, bytes.length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    for (byte m : MAGIC_BYTES) {
      if (b.get() != m) {
        throw new CorruptionException(file, 0, "bad magic (not a shard snapshot stamp)");
      }
    }
    int stored = ByteBuffer.wrap(bytes, BYTES - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    if (stored != Crc32c.of(bytes, 0, BYTES - 4)) {
      throw new CorruptionException(file, BYTES - 4, "checksum mismatch");
    }
    int version = b.getInt();
    if (version != VERSION) {
      throw new CorruptionException(file, 8, "version " + version + " is not supported (this build reads " + VERSION + ")");
    }
    return new Stamp(b.getLong(), b.getLong());
  }

  /** The stamp in {@code dir}, read through {@code fs}, or {@code null} when the shard has none yet. */
  public static Stamp read(FileSystem fs, Path dir) throws IOException {
    Path file = dir.resolve(NAME);
    try (StorageFile f = fs.open(file, FileSystem.OpenMode.READ)) {
      long size = f.size();
      if (size != BYTES) {
        throw wrongLength(file, size);
      }
      ByteBuffer b = ByteBuffer.allocate(BYTES);
      f.readFully(b, 0);
      return decode(file, b.array());
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** Replaces the stamp in {@code dir} atomically and durably, writing through {@code fs}. */
  public static void write(FileSystem fs, Path dir, Stamp stamp) throws IOException {
    Path tmp = dir.resolve(NAME + TMP_SUFFIX);
    try (StorageFile f = fs.open(tmp, FileSystem.OpenMode.READ_WRITE)) {
      f.truncate(0);
      f.writeFully(ByteBuffer.wrap(encode(stamp)), 0);
      f.sync();
    }
    try {
      fs.rename(tmp, dir.resolve(NAME));
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the file system of " + dir + " cannot rename atomically", e);
    }
    fs.syncDirectory(dir);
  }

  private static CorruptionException wrongLength(Path file, long length) {
    return new CorruptionException(file, 0, "snapshot stamp is " + length + " bytes, not " + BYTES);
  }
}
