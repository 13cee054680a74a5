package org.kvstore.bplus.page;

import static org.kvstore.bplus.page.PageFormat.PAGE_HEADER_BYTES;
import static org.kvstore.bplus.page.PageFormat.i32;
import static org.kvstore.bplus.page.PageFormat.i64;
import static org.kvstore.bplus.page.PageFormat.putI32;
import static org.kvstore.bplus.page.PageFormat.putI64;

/**
 * A page of the persisted page table (docs/format/bplus.md section 3.2): {@code next u64 |
 * firstLogical u64 | count u32 | reserved u32 | count * slot u64}.
 *
 * <p>Thread safety: stateless.
 */
public final class PageTablePage {
  private PageTablePage() {}

  public static int capacity(int pageSize) {
    return (pageSize - PAGE_HEADER_BYTES) / 8;
  }

  /** Encodes entries {@code table[first, first+count)} into {@code page}, sealed. */
  public static void encode(
      byte[] page, long slot, long next, long first, long[] table, int count) {
    PageFormat.initHeader(page, PageType.PAGE_TABLE, slot);
    putI64(page, 16, next);
    putI64(page, 24, first);
    putI32(page, 32, count);
    for (int i = 0; i < count; i++) {
      putI64(page, PAGE_HEADER_BYTES + 8 * i, table[(int) first + i]);
    }
    PageFormat.seal(page);
  }

  public static long next(byte[] page) {
    return i64(page, 16);
  }

  public static long firstLogical(byte[] page) {
    return i64(page, 24);
  }

  public static int count(byte[] page) {
    return i32(page, 32);
  }

  public static long entry(byte[] page, int i) {
    return i64(page, PAGE_HEADER_BYTES + 8 * i);
  }
}
