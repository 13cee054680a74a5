package org.kvstore.bplus.page;

import java.nio.file.Path;
import org.kvstore.CorruptionException;
import org.kvstore.codec.Crc32c;
import org.kvstore.codec.FixedLE;

/**
 * Constants of the page file format and the common page header's codec (type, version, page id,
 * CRC); the format is docs/format/bplus.md, whose layouts the page classes next to this one encode.
 *
 * <p>Thread safety: stateless.
 */
public final class PageFormat {
  /**
   * The format version of every page type but LEAF, and the oldest LEAF version: what this build
   * writes in the header of META, BRANCH, OVERFLOW and PAGE_TABLE pages.
   */
  public static final int VERSION = 1;

  /**
   * The version of the LEAF pages this build writes: cells may carry a version and an expiry time.
   * Version 1 leaves are still read (their cells are valid version 2 cells without either) and are
   * written as version 2 when they change.
   */
  public static final int LEAF_VERSION = 2;

  public static final int MIN_PAGE_SIZE = 4 << 10;
  public static final int MAX_PAGE_SIZE = 64 << 10;

  /** Offsets in the common header (16 bytes) of every page; the CRC covers the rest of the page. */
  public static final int CRC_OFFSET = 0;
  public static final int TYPE_OFFSET = 4;
  public static final int VERSION_OFFSET = 5;
  public static final int PAGE_ID_OFFSET = 8;
  public static final int COMMON_HEADER_BYTES = 16;

  /** Bytes of the header of slotted (leaf, branch), overflow and page-table pages. */
  public static final int PAGE_HEADER_BYTES = 40;

  /** Slots 0 and 1 hold the two meta pages. */
  public static final int META_SLOTS = 2;

  private PageFormat() {}

  /** Whether {@code pageSize} is allowed: a power of two from 4 KiB to 64 KiB. */
  public static boolean isValidPageSize(long pageSize) {
    return pageSize >= MIN_PAGE_SIZE
        && pageSize <= MAX_PAGE_SIZE
        && Long.bitCount(pageSize) == 1;
  }

  public static PageType type(byte[] page) {
    return PageType.of(page[TYPE_OFFSET] & 0xFF);
  }

  public static long pageId(byte[] page) {
    return FixedLE.getLong(page, PAGE_ID_OFFSET);
  }

  /** The format version this build writes for pages of {@code type}. */
  public static int currentVersion(PageType type) {
    return type == PageType.LEAF ? LEAF_VERSION : VERSION;
  }

  /** Whether this build reads a page of {@code type} (null: unknown) in format {@code version}. */
  public static boolean isReadable(PageType type, int version) {
    return version == VERSION || (version == LEAF_VERSION && type == PageType.LEAF);
  }

  public static int version(byte[] page) {
    return page[VERSION_OFFSET] & 0xFF;
  }

  /**
   * Sets the header's version to this build's version for the page's type. Called by every change
   * of a page's cells: a page this build changed is in this build's format.
   */
  static void stampCurrentVersion(byte[] page) {
    page[VERSION_OFFSET] = (byte) currentVersion(type(page));
  }

  /** Clears {@code page} and writes a common header of {@code type} and {@code pageId}. */
  public static void initHeader(byte[] page, PageType type, long pageId) {
    java.util.Arrays.fill(page, (byte) 0);
    page[TYPE_OFFSET] = (byte) type.code();
    page[VERSION_OFFSET] = (byte) currentVersion(type);
    FixedLE.putLong(page, PAGE_ID_OFFSET, pageId);
  }

  /** The CRC32C of bytes {@code [4, page.length)}. */
  public static int computeCrc(byte[] page) {
    return Crc32c.of(page, 4, page.length - 4);
  }

  /** Stores the page's CRC in its first four bytes; call just before writing it out. */
  public static void seal(byte[] page) {
    FixedLE.putInt(page, CRC_OFFSET, computeCrc(page));
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
    int stored = FixedLE.getInt(page, CRC_OFFSET);
    int actual = computeCrc(page);
    String which = "page " + (expectedId >= 0 ? expectedId : pageId(page)) + " (slot " + slot + ")";
    if (stored != actual) {
      throw new CorruptionException(
          file, offset,
          which + ": checksum mismatch, stored 0x" + Integer.toHexString(stored) + ", computed 0x"
              + Integer.toHexString(actual));
    }
    int version = version(page);
    PageType type = type(page);
    if (!isReadable(type, version)) {
      throw new CorruptionException(
          file, offset, which + ": unknown format version " + version + " for a " + type
              + " page (this build reads " + VERSION + ", and " + LEAF_VERSION + " for LEAF pages)");
    }
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
