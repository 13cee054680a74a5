package org.kvstore.wal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.kvstore.Entry;
import org.kvstore.codec.Crc32c;
import org.kvstore.spi.Mutation;

/**
 * Constants and codecs of the write-ahead log. The format (grammar, checksums, recovery rules,
 * example) is docs/format/wal.md; this class follows it and does not restate it.
 *
 * <p>Thread safety: stateless.
 */
public final class WalFormat {
  /** The version this build writes in every segment header; it reads 1 to this, and rejects others. */
  public static final int VERSION = 2;
  /** The first version whose records may hold {@link #PUT_EXPIRING}. */
  static final int FIRST_VERSION_WITH_EXPIRY = 2;
  /** Fragments never cross a multiple of this many bytes of a segment. */
  public static final int BLOCK_SIZE = 32 * 1024;
  /** A fragment's header: masked crc u32, length u16, type u8. */
  public static final int HEADER_BYTES = 4 + 2 + 1;

  /** Fragment types. DO NOT RENUMBER. */
  public static final byte FULL = 1;
  public static final byte FIRST = 2;
  public static final byte MIDDLE = 3;
  public static final byte LAST = 4;
  public static final byte SEGMENT_HEADER = 5;
  /** Set on record types that a reader that does not know them may skip. */
  public static final int SAFE_TO_IGNORE = 0x80;

  /** The first 8 bytes of a segment header record's data. */
  static final byte[] MAGIC = "KVSTWAL\0".getBytes(StandardCharsets.US_ASCII);
  /** A segment header record's data: magic, version u32, segment number u64, first LSN u64. */
  static final int SEGMENT_HEADER_BYTES = 8 + 4 + 8 + 8;

  /** Mutation kinds in a record of writes. DO NOT RENUMBER. */
  static final byte PUT = 1;
  static final byte REMOVE = 2;
  /** A put with an expiry time (version 2 on); a put without one stays {@link #PUT}. */
  static final byte PUT_EXPIRING = 3;

  private WalFormat() {}

  /** Segment file name for {@code number}: {@code 000042.log}. */
  public static String segmentName(long number) {
    return String.format("%06d.log", number);
  }

  /** The segment number of a file name, or -1 when it is not a segment. */
  public static long segmentNumber(String fileName) {
    if (!fileName.endsWith(".log") || fileName.length() < 5) {
      return -1;
    }
    String digits = fileName.substring(0, fileName.length() - 4);
    for (int i = 0; i < digits.length(); i++) {
      if (!Character.isDigit(digits.charAt(i))) {
        return -1;
      }
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The masked CRC32C of {@code type} followed by {@code data[off, off+len)}: a fragment's crc. */
  static int crc(byte type, byte[] data, int off, int len) {
    return Crc32c.mask(Crc32c.of(type, data, off, len));
  }

  /** The payload of a segment header record. */
  static byte[] encodeSegmentHeader(long segmentNumber, long firstLsn) {
    ByteBuffer b = ByteBuffer.allocate(SEGMENT_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC).putInt(VERSION).putLong(segmentNumber).putLong(firstLsn);
    return b.array();
  }

  /**
   * The size in bytes of the payload of a record of {@code mutations}.
   *
   * @throws IllegalArgumentException when the record would be too large for the log
   */
  static int writesSize(List<Mutation> mutations) {
    long size = 8 + 8 + 4;
    for (Mutation m : mutations) {
      size += 1 + 4 + m.key().length;
      if (!m.isRemove()) {
        size += 4 + m.value().length + (m.expiresAt() == Entry.NO_EXPIRY ? 0 : 8);
      }
    }
    if (size > Integer.MAX_VALUE - 64) {
      throw new IllegalArgumentException("a log record of " + size + " bytes is too large");
    }
    return (int) size;
  }

  /**
   * Puts the payload of a record of writes at {@code b}'s position: {@link #writesSize} bytes, which
   * the caller makes room for. {@code b} is little-endian.
   */
  static void encodeWrites(ByteBuffer b, long lsn, long tableId, List<Mutation> mutations) {
    b.putLong(lsn).putLong(tableId).putInt(mutations.size());
    for (Mutation m : mutations) {
      if (m.isRemove()) {
        b.put(REMOVE).putInt(m.key().length).put(m.key());
      } else if (m.expiresAt() == Entry.NO_EXPIRY) {
        b.put(PUT).putInt(m.key().length).put(m.key()).putInt(m.value().length).put(m.value());
      } else {
        b.put(PUT_EXPIRING).putInt(m.key().length).put(m.key()).putInt(m.value().length).put(m.value());
        b.putLong(m.expiresAt());
      }
    }
  }

  /** The payload of a record of writes, in an array of its own. */
  static byte[] encodeWrites(long lsn, long tableId, List<Mutation> mutations) {
    ByteBuffer b = ByteBuffer.allocate(writesSize(mutations)).order(ByteOrder.LITTLE_ENDIAN);
    encodeWrites(b, lsn, tableId, mutations);
    return b.array();
  }

  /** A decoded record of writes. Thread safety: immutable by convention. */
  public record WriteRecord(long lsn, long tableId, List<Mutation> mutations) {}

  /** Segment header fields. Thread safety: immutable. */
  public record SegmentHeader(int version, long segmentNumber, long firstLsn) {}

  /**
   * Decodes a writes payload of a segment of format {@code version}; throws
   * {@link IllegalArgumentException} saying what is wrong (a kind the version does not have, a
   * truncated field, stray bytes).
   */
  static WriteRecord decodeWrites(byte[] data, int version) {
    ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    if (b.remaining() < 20) {
      throw new IllegalArgumentException("record of " + data.length + " bytes is shorter than its 20-byte prefix");
    }
    long lsn = b.getLong();
    long tableId = b.getLong();
    int count = b.getInt();
    if (count < 0 || count > b.remaining() / 5) {
      throw new IllegalArgumentException("mutation count " + count + " does not fit the record");
    }
    List<Mutation> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      if (b.remaining() < 5) {
        throw new IllegalArgumentException("mutation " + i + " is truncated");
      }
      byte kind = b.get();
      byte[] key = bytes(b, "key of mutation " + i);
      if (kind == PUT) {
        out.add(Mutation.put(key, bytes(b, "value of mutation " + i)));
      } else if (kind == PUT_EXPIRING && version >= FIRST_VERSION_WITH_EXPIRY) {
        byte[] value = bytes(b, "value of mutation " + i);
        if (b.remaining() < 8) {
          throw new IllegalArgumentException("expiry of mutation " + i + " is truncated (" + b.remaining() + " of 8 bytes)");
        }
        long expiresAt = b.getLong();
        if (expiresAt == Entry.NO_EXPIRY) {
          throw new IllegalArgumentException("mutation " + i + " of kind PUT_EXPIRING has no expiry");
        }
        out.add(Mutation.put(key, value, expiresAt));
      } else if (kind == REMOVE) {
        out.add(Mutation.remove(key));
      } else {
        throw new IllegalArgumentException("mutation " + i + " has unknown kind " + kind + " (log format version " + version + ")");
      }
    }
    if (b.hasRemaining()) {
      throw new IllegalArgumentException(b.remaining() + " stray bytes after the last mutation");
    }
    return new WriteRecord(lsn, tableId, out);
  }

  static SegmentHeader decodeSegmentHeader(byte[] data) {
    if (data.length != SEGMENT_HEADER_BYTES) {
      throw new IllegalArgumentException("segment header of " + data.length + " bytes, expected " + SEGMENT_HEADER_BYTES);
    }
    ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    byte[] magic = new byte[8];
    b.get(magic);
    if (!java.util.Arrays.equals(magic, MAGIC)) {
      throw new IllegalArgumentException("bad segment magic");
    }
    return new SegmentHeader(b.getInt(), b.getLong(), b.getLong());
  }

  private static byte[] bytes(ByteBuffer b, String what) {
    if (b.remaining() < 4) {
      throw new IllegalArgumentException(what + " has no length");
    }
    int n = b.getInt();
    if (n < 0 || n > b.remaining()) {
      throw new IllegalArgumentException(what + " claims " + n + " bytes, " + b.remaining() + " remain");
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }
}
