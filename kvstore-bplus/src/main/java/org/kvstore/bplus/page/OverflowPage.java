package org.kvstore.bplus.page;

import static org.kvstore.bplus.page.PageFormat.PAGE_HEADER_BYTES;
import static org.kvstore.bplus.page.PageFormat.i32;
import static org.kvstore.bplus.page.PageFormat.i64;
import static org.kvstore.bplus.page.PageFormat.putI32;
import static org.kvstore.bplus.page.PageFormat.putI64;

/**
 * An overflow page (docs/format/bplus.md section 3.4): {@code chainId u64 | next u64 | length u32
 * | reserved u32 | payload}.
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
    putI64(page, CHAIN_ID_OFFSET, chainId);
    putI64(page, NEXT_OFFSET, next);
    putI32(page, LENGTH_OFFSET, len);
    System.arraycopy(src, from, page, PAGE_HEADER_BYTES, len);
  }

  public static long chainId(byte[] page) {
    return i64(page, CHAIN_ID_OFFSET);
  }

  public static long next(byte[] page) {
    return i64(page, NEXT_OFFSET);
  }

  public static void setNext(byte[] page, long next) {
    putI64(page, NEXT_OFFSET, next);
  }

  public static int length(byte[] page) {
    return i32(page, LENGTH_OFFSET);
  }
}
