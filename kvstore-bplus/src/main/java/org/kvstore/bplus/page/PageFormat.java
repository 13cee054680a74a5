package org.kvstore.bplus.page;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.kvstore.CorruptionException;

/**
 * Constants and byte-level helpers of the page file format, version 1: the common page header, the
 * per-page CRC32C, little-endian integers and varints. The format is documented byte by byte in
 * {@code docs/format/bplus.md}; this class and the page classes next to it are its only encoders.
 *
 * <p>Thread safety: stateless.
 */
public final class PageFormat {
  /** The format version written in every page header. */
  public static final int VERSION = 1;

  public static final int MIN_PAGE_SIZE = 4 << 10;
  public static final int MAX_PAGE_SIZE = 64 << 10;

  /** Offsets of the common header (16 bytes). */
  public static final int CRC_OFFSET = 0;
  public static final int TYPE_OFFSET = 4;
  public static final int VERSION_OFFSET = 5;
  public static final int PAGE_ID_OFFSET = 8;
  public static final int COMMON_HEADER_BYTES = 16;

  /** Bytes of the header of slotted (leaf, branch), overflow and page-table pages. */
  public static final int PAGE_HEADER_BYTES = 40;

  /** Slots 0 and 1 hold the two meta pages. */
  public static final int META_SLOTS = 2;

  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private PageFormat() {}

  /** Whether {@code pageSize} is allowed: a power of two from 4 KiB to 64 KiB. */
  public static boolean isValidPageSize(long pageSize) {
    return pageSize >= MIN_PAGE_SIZE
        && pageSize <= MAX_PAGE_SIZE
        && Long.bitCount(pageSize) == 1;
  }

  public static int u16(byte[] b, int off) {
    return (short) SHORT.get(b, off) & 0xFFFF;
  }

  public static void putU16(byte[] b, int off, int v) {
    SHORT.set(b, off, (short) v);
  }

  public static int i32(byte[] b, int off) {
    return (int) INT.get(b, off);
  }

  public static void putI32(byte[] b, int off, int v) {
    INT.set(b, off, v);
  }

  public static long i64(byte[] b, int off) {
    return (long) LONG.get(b, off);
  }

  public static void putI64(byte[] b, int off, long v) {
    LONG.set(b, off, v);
  }

  /** Bytes the varint of {@code v} takes (1 to 5). */
  public static int varintSize(int v) {
    int n = 1;
    while ((v & ~0x7F) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  /** Writes {@code v} as a varint at {@code off}; returns the offset after it. */
  public static int putVarint(byte[] b, int off, int v) {
    while ((v & ~0x7F) != 0) {
      b[off++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    b[off++] = (byte) v;
    return off;
  }

  /** Reads the varint at {@code off}; {@link #varintEnd} gives the offset after it. */
  public static int varint(byte[] b, int off) {
    int v = 0;
    int shift = 0;
    while (true) {
      int x = b[off++];
      v |= (x & 0x7F) << shift;
      if (x >= 0) {
        return v;
      }
      shift += 7;
      if (shift > 28) {
        throw new IllegalStateException("varint longer than 5 bytes");
      }
    }
  }

  /** The offset just after the varint starting at {@code off}. */
  public static int varintEnd(byte[] b, int off) {
    while (b[off] < 0) {
      off++;
    }
    return off + 1;
  }

  public static PageType type(byte[] page) {
    return PageType.of(page[TYPE_OFFSET] & 0xFF);
  }

  public static long pageId(byte[] page) {
    return i64(page, PAGE_ID_OFFSET);
  }

  /** Clears {@code page} and writes a common header of {@code type} and {@code pageId}. */
  public static void initHeader(byte[] page, PageType type, long pageId) {
    java.util.Arrays.fill(page, (byte) 0);
    page[TYPE_OFFSET] = (byte) type.code();
    page[VERSION_OFFSET] = (byte) VERSION;
    putI64(page, PAGE_ID_OFFSET, pageId);
  }

  /** The CRC32C of bytes {@code [4, page.length)}. */
  public static int computeCrc(byte[] page) {
    CRC32C crc = new CRC32C();
    crc.update(page, 4, page.length - 4);
    return (int) crc.getValue();
  }

  /** Stores the page's CRC in its first four bytes; call just before writing it out. */
  public static void seal(byte[] page) {
    putI32(page, CRC_OFFSET, computeCrc(page));
  }

  /**
   * Checks a page read from slot {@code slot} of {@code file}: CRC, version, and (when {@code
   * expected} is not null) its type and page id.
   *
   * @param expectedId the page id the header must carry; ignored when negative
   * @throws CorruptionException naming the file, the page and the slot's offset
   */
  public static void verify(
      byte[] page, Path file, long slot, PageType expected, long expectedId) {
    long offset = slot * page.length;
    int stored = i32(page, CRC_OFFSET);
    int actual = computeCrc(page);
    String which = "page " + (expectedId >= 0 ? expectedId : pageId(page)) + " (slot " + slot + ")";
    if (stored != actual) {
      throw new CorruptionException(
          file, offset,
          which + ": checksum mismatch, stored 0x" + Integer.toHexString(stored) + ", computed 0x"
              + Integer.toHexString(actual));
    }
    int version = page[VERSION_OFFSET] & 0xFF;
    if (version != VERSION) {
      throw new CorruptionException(
          file, offset, which + ": unknown format version " + version + " (this build reads "
              + VERSION + ")");
    }
    PageType type = type(page);
    if (expected != null && type != expected) {
      throw new CorruptionException(
          file, offset, which + ": expected a " + expected + " page, found type "
              + (page[TYPE_OFFSET] & 0xFF));
    }
    if (expectedId >= 0 && pageId(page) != expectedId) {
      throw new CorruptionException(
          file, offset, which + ": header names page " + pageId(page) + " (misdirected write?)");
    }
  }
}
