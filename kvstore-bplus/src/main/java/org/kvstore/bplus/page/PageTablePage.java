package org.kvstore.bplus.page;

import static org.kvstore.bplus.page.PageFormat.PAGE_HEADER_BYTES;

import org.kvstore.codec.FixedLE;

/**
 * A page of the persisted page table, laid out as docs/format/bplus.md section 3.2 says.
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
    FixedLE.putLong(page, 16, next);
    FixedLE.putLong(page, 24, first);
    FixedLE.putInt(page, 32, count);
    for (int i = 0; i < count; i++) {
      FixedLE.putLong(page, PAGE_HEADER_BYTES + 8 * i, table[(int) first + i]);
    }
    PageFormat.seal(page);
  }

  public static long next(byte[] page) {
    return FixedLE.getLong(page, 16);
  }

  public static long firstLogical(byte[] page) {
    return FixedLE.getLong(page, 24);
  }

  public static int count(byte[] page) {
    return FixedLE.getInt(page, 32);
  }

  public static long entry(byte[] page, int i) {
    return FixedLE.getLong(page, PAGE_HEADER_BYTES + 8 * i);
  }
}
