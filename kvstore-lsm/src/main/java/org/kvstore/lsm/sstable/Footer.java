package org.kvstore.lsm.sstable;

import java.nio.file.Path;
import org.kvstore.CorruptionException;
import org.kvstore.codec.Crc32c;
import org.kvstore.codec.FixedLE;

/**
 * The fixed 48-byte tail of an SSTable (docs/format/sstable.md, "Footer"); the same layout in
 * every format version.
 *
 * <p>Thread safety: immutable.
 *
 * @param formatVersion the file's format version ({@link SstableFormat#FORMAT_VERSION} for a file
 *     this code writes)
 */
public record Footer(BlockHandle filter, BlockHandle index, long entryCount, int formatVersion) {

  /** The footer of a file written now, in {@link SstableFormat#FORMAT_VERSION}. */
  public Footer(BlockHandle filter, BlockHandle index, long entryCount) {
    this(filter, index, entryCount, SstableFormat.FORMAT_VERSION);
  }

  public byte[] encode() {
    byte[] b = new byte[SstableFormat.FOOTER_BYTES];
    FixedLE.putLong(b, 0, filter.offset());
    FixedLE.putInt(b, 8, filter.size());
    FixedLE.putLong(b, 12, index.offset());
    FixedLE.putInt(b, 20, index.size());
    FixedLE.putLong(b, 24, entryCount);
    FixedLE.putInt(b, 32, formatVersion);
    FixedLE.putInt(b, 36, Crc32c.of(b, 0, 36));
    FixedLE.putLong(b, 40, SstableFormat.MAGIC);
    return b;
  }

  /**
   * Decodes the footer read from {@code fileSize - 48} of {@code path}.
   *
   * @throws CorruptionException for a bad magic, version, checksum or handle
   */
  public static Footer decode(byte[] b, Path path, long fileSize) {
    long at = fileSize - SstableFormat.FOOTER_BYTES;
    if (FixedLE.getLong(b, 40) != SstableFormat.MAGIC) {
      throw new CorruptionException(path, at + 40, "bad SSTable magic (not an SSTable or truncated)");
    }
    if (FixedLE.getInt(b, 36) != Crc32c.of(b, 0, 36)) {
      throw new CorruptionException(path, at, "SSTable footer checksum mismatch");
    }
    int version = FixedLE.getInt(b, 32);
    if (!SstableFormat.isReadable(version)) {
      throw new CorruptionException(path, at + 32, "unknown SSTable format version " + version);
    }
    BlockHandle filter = new BlockHandle(FixedLE.getLong(b, 0), FixedLE.getInt(b, 8));
    BlockHandle index = new BlockHandle(FixedLE.getLong(b, 12), FixedLE.getInt(b, 20));
    long entries = FixedLE.getLong(b, 24);
    for (BlockHandle h : new BlockHandle[] {filter, index}) {
      if (h.offset() < 0 || h.size() < 0
          || h.offset() + h.size() + SstableFormat.BLOCK_TRAILER_BYTES > at) {
        throw new CorruptionException(path, at, "block handle " + h + " outside the file");
      }
    }
    return new Footer(filter, index, entries, version);
  }
}
