package org.kvstore.bplus.page;

import static org.kvstore.bplus.page.SlottedPage.KEY_OVERFLOW;

import org.kvstore.codec.FixedLE;
import org.kvstore.codec.Varints;

/**
 * Encodes and decodes branch cells, laid out as docs/format/bplus.md section 3.3 says. The child
 * of cell {@code i} holds keys {@code >= key[i]}; the page's link field holds the leftmost child
 * (keys below {@code key[0]}).
 *
 * <p>Thread safety: stateless; callers hold the page's latch.
 */
public final class BranchPage {
  private BranchPage() {}

  public static int cellSize(byte[] page, int off) {
    int flags = page[off];
    int keyLen = Varints.getIntAt(page, off + 1, page.length);
    int p = Varints.endOf(page, off + 1, page.length);
    int extra = (flags & KEY_OVERFLOW) != 0 ? 16 : 0;
    return p - off + SlottedPage.inlineKeyLength(flags, keyLen) + extra + 8;
  }

  /** Size of a separator cell for a key of {@code keyLen}. */
  public static int cellSizeFor(int keyLen, boolean keyOverflow) {
    int keyBytes = keyOverflow ? SlottedPage.KEY_PREFIX_BYTES + 16 : keyLen;
    return 1 + Varints.sizeOf(keyLen) + keyBytes + 8;
  }

  /** Writes a separator cell; {@code chainFirst}/{@code chainId} are used with key overflow. */
  public static void writeCell(
      byte[] page, int off, byte[] key, boolean keyOverflow, long chainFirst, long chainId,
      long child) {
    page[off] = (byte) (keyOverflow ? KEY_OVERFLOW : 0);
    int p = Varints.put(page, off + 1, key.length);
    int inlineKey = keyOverflow ? SlottedPage.KEY_PREFIX_BYTES : key.length;
    System.arraycopy(key, 0, page, p, inlineKey);
    p += inlineKey;
    if (keyOverflow) {
      FixedLE.putLong(page, p, chainFirst);
      FixedLE.putLong(page, p + 8, chainId);
      p += 16;
    }
    FixedLE.putLong(page, p, child);
  }

  public static long child(byte[] page, int off) {
    return FixedLE.getLong(page, off + cellSize(page, off) - 8);
  }

  public static void setChild(byte[] page, int off, long child) {
    FixedLE.putLong(page, off + cellSize(page, off) - 8, child);
  }

  /** The child at position {@code pos}: 0 is the leftmost child, {@code i + 1} the child of cell i. */
  public static long childAt(byte[] page, int pos) {
    return pos == 0
        ? SlottedPage.link(page)
        : child(page, SlottedPage.cellOffset(page, pos - 1));
  }

  public static boolean isKeyOverflow(byte[] page, int off) {
    return (page[off] & KEY_OVERFLOW) != 0;
  }

  /** Chain of a {@link SlottedPage#KEY_OVERFLOW} cell: offset of chainFirst. */
  public static int chainRefOffset(byte[] page, int off) {
    return SlottedPage.keyOffset(page, off, false) + SlottedPage.KEY_PREFIX_BYTES;
  }
}
