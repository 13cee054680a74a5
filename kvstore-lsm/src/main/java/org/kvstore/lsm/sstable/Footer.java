package org.kvstore.lsm.sstable;

import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.kvstore.CorruptionException;

/**
 * The fixed 48-byte tail of an SSTable (docs/format/sstable.md, "Footer").
 *
 * <p>Thread safety: immutable.
 */
public record Footer(BlockHandle filter, BlockHandle index, long entryCount) {

  public byte[] encode() {
    byte[] b = new byte[SstableFormat.FOOTER_BYTES];
    VarInts.putLongLE(b, 0, filter.offset());
    VarInts.putIntLE(b, 8, filter.size());
    VarInts.putLongLE(b, 12, index.offset());
    VarInts.putIntLE(b, 20, index.size());
    VarInts.putLongLE(b, 24, entryCount);
    VarInts.putIntLE(b, 32, SstableFormat.FORMAT_VERSION);
    CRC32C crc = new CRC32C();
    crc.update(b, 0, 36);
    VarInts.putIntLE(b, 36, (int) crc.getValue());
    VarInts.putLongLE(b, 40, SstableFormat.MAGIC);
    return b;
  }

  /**
   * Decodes the footer read from {@code fileSize - 48} of {@code path}.
   *
   * @throws CorruptionException for a bad magic, version, checksum or handle
   */
  public static Footer decode(byte[] b, Path path, long fileSize) {
    long at = fileSize - SstableFormat.FOOTER_BYTES;
    if (VarInts.getLongLE(b, 40) != SstableFormat.MAGIC) {
      throw new CorruptionException(path, at + 40, "bad SSTable magic (not an SSTable or truncated)");
    }
    CRC32C crc = new CRC32C();
    crc.update(b, 0, 36);
    if (VarInts.getIntLE(b, 36) != (int) crc.getValue()) {
      throw new CorruptionException(path, at, "SSTable footer checksum mismatch");
    }
    int version = VarInts.getIntLE(b, 32);
    if (version != SstableFormat.FORMAT_VERSION) {
      throw new CorruptionException(path, at + 32, "unknown SSTable format version " + version);
    }
    BlockHandle filter = new BlockHandle(VarInts.getLongLE(b, 0), VarInts.getIntLE(b, 8));
    BlockHandle index = new BlockHandle(VarInts.getLongLE(b, 12), VarInts.getIntLE(b, 20));
    long entries = VarInts.getLongLE(b, 24);
    for (BlockHandle h : new BlockHandle[] {filter, index}) {
      if (h.offset() < 0 || h.size() < 0
          || h.offset() + h.size() + SstableFormat.BLOCK_TRAILER_BYTES > at) {
        throw new CorruptionException(path, at, "block handle " + h + " outside the file");
      }
    }
    return new Footer(filter, index, entries);
  }
}
