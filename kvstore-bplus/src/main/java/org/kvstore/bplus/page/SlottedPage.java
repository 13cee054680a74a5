package org.kvstore.bplus.page;

import static org.kvstore.bplus.page.PageFormat.PAGE_HEADER_BYTES;

import java.util.Arrays;
import org.kvstore.codec.FixedLE;
import org.kvstore.codec.Varints;

/**
 * The slotted layout shared by leaf and branch pages (docs/format/bplus.md section 3.3): a sorted
 * array of u16 cell offsets after the 40-byte header, cells packed downwards from the end of the
 * page, and a count of dead bytes ("garbage") reclaimed by {@link #compact}.
 *
 * <p>All methods work on the page's bytes in place. Thread safety: stateless; callers hold the
 * page's latch (shared to read, exclusive to change).
 */
public final class SlottedPage {
  static final int COUNT_OFFSET = 16;
  static final int LEVEL_OFFSET = 18;
  static final int CONTENT_START_OFFSET = 20;
  static final int GARBAGE_OFFSET = 24;
  static final int LINK_OFFSET = 32;
  static final int SLOTS_OFFSET = PAGE_HEADER_BYTES;

  /** Flag bits of a cell's first byte. */
  public static final int VALUE_OVERFLOW = 1;

  public static final int KEY_OVERFLOW = 2;

  /** Inline prefix length of a key stored with {@link #KEY_OVERFLOW}. */
  public static final int KEY_PREFIX_BYTES = 128;

  /** Returned by {@link #compareKey} when the inline prefix cannot decide. */
  public static final int NEEDS_FULL_KEY = Integer.MIN_VALUE;

  private SlottedPage() {}

  /** Largest cell of a page of {@code pageSize}: a quarter of the space after the header. */
  public static int maxCell(int pageSize) {
    return (pageSize - PAGE_HEADER_BYTES) / 4;
  }

  /**
   * Longest key stored inline; longer keys use {@link #KEY_OVERFLOW}. The margin leaves room, in a
   * cell of at most {@link #maxCell} bytes, for the flags, both lengths, a chain reference and the
   * cell's expiry and version (1 + 3 + 5 + 16 + 8 + 10 = 43 bytes at most).
   */
  public static int maxInlineKey(int pageSize) {
    return maxCell(pageSize) - 48;
  }

  /** Clears {@code page} into an empty slotted page. */
  public static void init(byte[] page, PageType type, int level, long pageId, long link) {
    PageFormat.initHeader(page, type, pageId);
    FixedLE.putU16(page, LEVEL_OFFSET, level);
    FixedLE.putInt(page, CONTENT_START_OFFSET, page.length);
    FixedLE.putLong(page, LINK_OFFSET, link);
  }

  /** Height above the leaves: 0 for a leaf, 1 for a branch over leaves, ... */
  public static int level(byte[] page) {
    return FixedLE.getU16(page, LEVEL_OFFSET);
  }

  public static int count(byte[] page) {
    return FixedLE.getU16(page, COUNT_OFFSET);
  }

  /** LEAF: the right sibling; BRANCH: the leftmost child. */
  public static long link(byte[] page) {
    return FixedLE.getLong(page, LINK_OFFSET);
  }

  public static void setLink(byte[] page, long link) {
    FixedLE.putLong(page, LINK_OFFSET, link);
  }

  public static int cellOffset(byte[] page, int index) {
    return FixedLE.getU16(page, SLOTS_OFFSET + 2 * index);
  }

  static int contentStart(byte[] page) {
    return FixedLE.getInt(page, CONTENT_START_OFFSET);
  }

  static int garbage(byte[] page) {
    return FixedLE.getInt(page, GARBAGE_OFFSET);
  }

  /** Bytes free between the slot array and the cells. */
  public static int freeGap(byte[] page) {
    return contentStart(page) - (SLOTS_OFFSET + 2 * count(page));
  }

  /** Bytes an insert can use after a compaction. */
  public static int freeTotal(byte[] page) {
    return freeGap(page) + garbage(page);
  }

  /** Whether a cell of {@code cellBytes} fits, compacting if needed. */
  public static boolean fits(byte[] page, int cellBytes) {
    return freeTotal(page) >= cellBytes + 2;
  }

  /** The size of the cell at {@code off}, for either page type. */
  public static int cellSize(byte[] page, int off) {
    return PageFormat.type(page) == PageType.LEAF
        ? LeafPage.cellSize(page, off)
        : BranchPage.cellSize(page, off);
  }

  /**
   * Makes room for a cell of {@code size} bytes at slot {@code index} and returns its offset; the
   * caller writes the cell there (and, in a leaf, calls {@link LeafPage#noteCellWritten}).
   * REQUIRES: {@code fits(page, size)}.
   */
  public static int allocateCell(byte[] page, int index, int size) {
    PageFormat.stampCurrentVersion(page);
    if (freeGap(page) < size + 2) {
      compact(page);
    }
    int n = count(page);
    assert index >= 0 && index <= n;
    int off = contentStart(page) - size;
    assert off >= SLOTS_OFFSET + 2 * (n + 1);
    int slot = SLOTS_OFFSET + 2 * index;
    System.arraycopy(page, slot, page, slot + 2, 2 * (n - index));
    FixedLE.putU16(page, slot, off);
    FixedLE.putU16(page, COUNT_OFFSET, n + 1);
    FixedLE.putInt(page, CONTENT_START_OFFSET, off);
    return off;
  }

  /** Inserts a copy of {@code cell[from, from+len)} at slot {@code index}. */
  public static void insertCell(byte[] page, int index, byte[] cell, int from, int len) {
    int off = allocateCell(page, index, len);
    System.arraycopy(cell, from, page, off, len);
    if (PageFormat.type(page) == PageType.LEAF) {
      LeafPage.noteCellWritten(page, off);
    }
  }

  /** Removes the cell at slot {@code index}; its bytes become garbage. */
  public static void removeCell(byte[] page, int index) {
    PageFormat.stampCurrentVersion(page);
    int n = count(page);
    int off = cellOffset(page, index);
    int size = cellSize(page, off);
    int slot = SLOTS_OFFSET + 2 * index;
    System.arraycopy(page, slot + 2, page, slot, 2 * (n - index - 1));
    FixedLE.putU16(page, SLOTS_OFFSET + 2 * (n - 1), 0);
    FixedLE.putU16(page, COUNT_OFFSET, n - 1);
    if (off == contentStart(page)) {
      FixedLE.putInt(page, CONTENT_START_OFFSET, off + size);
    } else {
      FixedLE.putInt(page, GARBAGE_OFFSET, garbage(page) + size);
    }
  }

  /** Rewrites the cells contiguously at the end of the page, in slot order; garbage becomes 0. */
  public static void compact(byte[] page) {
    PageFormat.stampCurrentVersion(page);
    int n = count(page);
    byte[] copy = page.clone();
    int end = page.length;
    for (int i = 0; i < n; i++) {
      int off = cellOffset(copy, i);
      int size = cellSize(copy, off);
      end -= size;
      System.arraycopy(copy, off, page, end, size);
      FixedLE.putU16(page, SLOTS_OFFSET + 2 * i, end);
    }
    Arrays.fill(page, SLOTS_OFFSET + 2 * n, end, (byte) 0);
    FixedLE.putInt(page, CONTENT_START_OFFSET, end);
    FixedLE.putInt(page, GARBAGE_OFFSET, 0);
  }

  /** Offset of the key bytes of the cell at {@code off} (after flags and length varints). */
  public static int keyOffset(byte[] page, int off, boolean leaf) {
    int p = Varints.endOf(page, off + 1, page.length);
    return leaf ? Varints.endOf(page, p, page.length) : p;
  }

  /** The full key length of the cell at {@code off}. */
  public static int keyLength(byte[] page, int off) {
    int b = page[off + 1];
    return b >= 0 ? b : Varints.getIntAt(page, off + 1, page.length);
  }

  /** Bytes of the key stored inline for a key of {@code keyLen} with {@code flags}. */
  public static int inlineKeyLength(int flags, int keyLen) {
    return (flags & KEY_OVERFLOW) != 0 ? KEY_PREFIX_BYTES : keyLen;
  }

  /**
   * Compares the key of the cell at {@code off} with {@code key}: negative when the cell's key is
   * smaller. Returns {@link #NEEDS_FULL_KEY} when the cell stores only a prefix that equals the
   * start of {@code key} and the full key must be read from its overflow chain.
   */
  public static int compareKey(byte[] page, int off, boolean leaf, byte[] key) {
    int flags = page[off];
    int keyLen = keyLength(page, off);
    int ko = keyOffset(page, off, leaf);
    if ((flags & KEY_OVERFLOW) == 0) {
      return Arrays.compareUnsigned(page, ko, ko + keyLen, key, 0, key.length);
    }
    int common = Math.min(KEY_PREFIX_BYTES, key.length);
    int mismatch = Arrays.mismatch(page, ko, ko + common, key, 0, common);
    if (mismatch >= 0) {
      return Byte.toUnsignedInt(page[ko + mismatch]) - Byte.toUnsignedInt(key[mismatch]);
    }
    if (key.length <= KEY_PREFIX_BYTES) {
      return 1; // the cell's key is longer than the prefix, which equals all of key
    }
    return NEEDS_FULL_KEY;
  }
}
