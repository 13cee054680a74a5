package org.kvstore.lsm.sstable;

import org.kvstore.codec.Crc32c;

/**
 * Constants of the SSTable file format; the format (grammar, checks, example) is
 * docs/format/sstable.md. A change to the bytes updates that doc, the golden file {@code
 * golden/sstable-v1.bin} and {@link #FORMAT_VERSION} in the same change.
 *
 * <p>Thread safety: stateless.
 */
public final class SstableFormat {
  /** "KVSSTBL1" read as a little-endian u64: the last 8 bytes of every SSTable. */
  public static final long MAGIC = 0x314C42545353564BL;
  /** Format versions, a one-way ratchet: 1 = this layout. Readers reject any other value. */
  public static final int FORMAT_VERSION = 1;
  /** The fixed tail of every SSTable: handles, entry count, version, footer CRC, magic. */
  public static final int FOOTER_BYTES = 48;
  /** Compression byte plus CRC32C after every block's stored contents. */
  public static final int BLOCK_TRAILER_BYTES = 5;
  /** Entries between restart points (full keys) in a block. */
  public static final int RESTART_INTERVAL = 16;
  /** Stored-contents compression codes. DO NOT RENUMBER. */
  public static final int COMPRESSION_NONE = 0;
  public static final int COMPRESSION_LZ4 = 1;
  /** File name suffix; the file is {@code NNNNNN.sst} with its 6+ digit file number. */
  public static final String FILE_SUFFIX = ".sst";

  private SstableFormat() {}

  public static String fileName(long fileNum) {
    return String.format("%06d%s", fileNum, FILE_SUFFIX);
  }

  /** The file number of an SSTable file name, or -1 when {@code name} is not one. */
  public static long parseFileName(String name) {
    if (!name.endsWith(FILE_SUFFIX)) {
      return -1;
    }
    String digits = name.substring(0, name.length() - FILE_SUFFIX.length());
    if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** CRC32C over {@code data[off, off+len)} followed by the compression byte. */
  public static int blockCrc(byte[] data, int off, int len, int compression) {
    return Crc32c.of(data, off, len, (byte) compression);
  }
}
