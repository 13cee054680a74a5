package org.kvstore.lsm.sstable;

import org.kvstore.Entry;
import org.kvstore.codec.Crc32c;
import org.kvstore.codec.Varints;

/**
 * Constants of the SSTable file format; the format (grammar, checks, example) is
 * docs/format/sstable.md. A change to the bytes updates that doc, a golden file {@code
 * golden/sstable-vN.bin} and {@link #FORMAT_VERSION} in the same change.
 *
 * <p>Thread safety: stateless.
 */
public final class SstableFormat {
  /** "KVSSTBL1" read as a little-endian u64: the last 8 bytes of every SSTable. */
  public static final long MAGIC = 0x314C42545353564BL;
  /**
   * The format version writers write, a one-way ratchet: 2 = entries carry their version and
   * expiry. Readers read {@link #FORMAT_VERSION_1} too and reject any other value.
   */
  public static final int FORMAT_VERSION = 2;
  /** The first layout: entries without version or expiry (they report version 0, no expiry). */
  public static final int FORMAT_VERSION_1 = 1;
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

  /** Whether a reader of this code reads SSTables of {@code version}. */
  public static boolean isReadable(int version) {
    return version == FORMAT_VERSION_1 || version == FORMAT_VERSION;
  }

  /** The most bytes {@link #putEntryMeta} writes. */
  public static final int MAX_ENTRY_META_BYTES = 2 * Varints.MAX_BYTES;

  /**
   * Writes the metadata that starts a version-2 entry's value field: {@code version << 1 |
   * hasExpiry} as a varint, then {@code expiresAt} as a varint when there is one.
   *
   * @return the offset after it
   */
  public static int putEntryMeta(byte[] dst, int off, long version, long expiresAt) {
    boolean expires = expiresAt != Entry.NO_EXPIRY;
    off = Varints.put(dst, off, version << 1 | (expires ? 1 : 0));
    return expires ? Varints.put(dst, off, expiresAt) : off;
  }

  /**
   * Decodes the metadata {@link #putEntryMeta} wrote at {@code src[pos[0], limit)} into
   * {@code out[0]} (version) and {@code out[1]} (expiry), and moves {@code pos[0]} past it.
   *
   * @throws org.kvstore.codec.CodecException for a malformed varint
   */
  public static void getEntryMeta(byte[] src, int[] pos, int limit, long[] out) {
    long meta = Varints.get(src, pos, limit);
    out[0] = meta >>> 1;
    out[1] = (meta & 1) != 0 ? Varints.get(src, pos, limit) : Entry.NO_EXPIRY;
  }

  /** CRC32C over {@code data[off, off+len)} followed by the compression byte. */
  public static int blockCrc(byte[] data, int off, int len, int compression) {
    return Crc32c.of(data, off, len, (byte) compression);
  }
}
