package org.kvstore.cluster.shard;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.kvstore.CorruptionException;
import org.kvstore.codec.Crc32c;

/**
 * The (term, index) stamp of a shard's latest snapshot: the Raft log position up to which every
 * table of the shard has persisted state. Format: docs/format/shard-snapshot.md (the source of
 * truth; {@code ShardSnapshotFileTest} checks the golden file {@code golden/shard-snapshot-v1.bin}).
 *
 * <p>Written to a temporary file, fsynced, renamed over the old one and the directory fsynced: a
 * crash leaves the old stamp or the new one, never a mix.
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
      throw new CorruptionException(file, 0, "snapshot stamp is " + bytes.length + " bytes, not " + BYTES);
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

  /** The stamp in {@code dir}, or {@code null} when the shard has none yet. */
  public static Stamp read(Path dir) throws IOException {
    Path file = dir.resolve(NAME);
    try {
      return decode(file, Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** Replaces the stamp in {@code dir} atomically and durably. */
  public static void write(Path dir, Stamp stamp) throws IOException {
    Path tmp = dir.resolve(NAME + TMP_SUFFIX);
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer b = ByteBuffer.wrap(encode(stamp));
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    try {
      Files.move(tmp, dir.resolve(NAME), StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the file system of " + dir + " cannot rename atomically", e);
    }
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }
}
