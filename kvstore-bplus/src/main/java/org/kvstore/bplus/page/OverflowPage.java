package org.kvstore.bplus.page;

import static org.kvstore.bplus.page.PageFormat.PAGE_HEADER_BYTES;

import org.kvstore.codec.FixedLE;

/**
 * An overflow page, laid out as docs/format/bplus.md section 3.4 says.
 *
 * <p>Thread safety: stateless; callers hold the page's latch.
 */
public final class OverflowPage {
  static final int CHAIN_ID_OFFSET = 16;
  static final int NEXT_OFFSET = 24;
  static final int LENGTH_OFFSET = 32;

  private OverflowPage() {}

  public static int capacity(int pageSize) {
    return pageSize - PAGE_HEADER_BYTES;
  }

  /** Initializes {@code page} with {@code len} payload bytes from {@code src[from..]}. */
  public static void init(
      byte[] page, long pageId, long chainId, long next, byte[] src, int from, int len) {
    PageFormat.initHeader(page, PageType.OVERFLOW, pageId);
    FixedLE.putLong(page, CHAIN_ID_OFFSET, chainId);
    FixedLE.putLong(page, NEXT_OFFSET, next);
    FixedLE.putInt(page, LENGTH_OFFSET, len);
    System.arraycopy(src, from, page, PAGE_HEADER_BYTES, len);
  }

  public static long chainId(byte[] page) {
    return FixedLE.getLong(page, CHAIN_ID_OFFSET);
  }

  public static long next(byte[] page) {
    return FixedLE.getLong(page, NEXT_OFFSET);
  }

  public static void setNext(byte[] page, long next) {
    FixedLE.putLong(page, NEXT_OFFSET, next);
  }

  public static int length(byte[] page) {
    return FixedLE.getInt(page, LENGTH_OFFSET);
  }
}
