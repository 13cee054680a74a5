package org.kvstore.bplus.page;

import static org.kvstore.bplus.page.SlottedPage.KEY_OVERFLOW;
import static org.kvstore.bplus.page.SlottedPage.VALUE_OVERFLOW;

import org.kvstore.codec.FixedLE;
import org.kvstore.codec.Varints;

/**
 * Encodes and decodes leaf cells, laid out as docs/format/bplus.md section 3.3 says.
 *
 * <p>Thread safety: stateless; callers hold the page's latch.
 */
public final class LeafPage {
  private LeafPage() {}

  public static int cellSize(byte[] page, int off) {
    int flags = page[off];
    int keyLen = Varints.getIntAt(page, off + 1, page.length);
    int p = Varints.endOf(page, off + 1, page.length);
    int valueLen = Varints.getIntAt(page, p, page.length);
    p = Varints.endOf(page, p, page.length);
    int tail = (flags & VALUE_OVERFLOW) != 0 ? 16 : valueLen;
    return p - off + SlottedPage.inlineKeyLength(flags, keyLen) + tail;
  }

  /** Size of an inline cell for these lengths. */
  public static int inlineCellSize(int keyLen, int valueLen) {
    return 1 + Varints.sizeOf(keyLen) + Varints.sizeOf(valueLen) + keyLen + valueLen;
  }

  /** Size of a cell whose value (and, with {@code keyOverflow}, key) lives in a chain. */
  public static int overflowCellSize(int keyLen, int valueLen, boolean keyOverflow) {
    int inlineKey = keyOverflow ? SlottedPage.KEY_PREFIX_BYTES : keyLen;
    return 1 + Varints.sizeOf(keyLen) + Varints.sizeOf(valueLen) + inlineKey + 16;
  }

  /** Writes an inline cell at {@code off}. */
  public static void writeInlineCell(byte[] page, int off, byte[] key, byte[] value) {
    page[off] = 0;
    int p = Varints.put(page, off + 1, key.length);
    p = Varints.put(page, p, value.length);
    System.arraycopy(key, 0, page, p, key.length);
    System.arraycopy(value, 0, page, p + key.length, value.length);
  }

  /** Writes a cell whose value (and maybe key) is in chain {@code chainId} starting at {@code first}. */
  public static void writeOverflowCell(
      byte[] page, int off, byte[] key, int valueLen, boolean keyOverflow, long first, long chainId) {
    page[off] = (byte) (VALUE_OVERFLOW | (keyOverflow ? KEY_OVERFLOW : 0));
    int p = Varints.put(page, off + 1, key.length);
    p = Varints.put(page, p, valueLen);
    int inlineKey = keyOverflow ? SlottedPage.KEY_PREFIX_BYTES : key.length;
    System.arraycopy(key, 0, page, p, inlineKey);
    p += inlineKey;
    FixedLE.putLong(page, p, first);
    FixedLE.putLong(page, p + 8, chainId);
  }

  public static int flags(byte[] page, int off) {
    return page[off];
  }

  public static boolean isOverflow(byte[] page, int off) {
    return (page[off] & VALUE_OVERFLOW) != 0;
  }

  public static boolean isKeyOverflow(byte[] page, int off) {
    return (page[off] & KEY_OVERFLOW) != 0;
  }

  public static int valueLength(byte[] page, int off) {
    return Varints.getIntAt(page, Varints.endOf(page, off + 1, page.length), page.length);
  }

  /** Offset of the inline value, or of the chain reference for overflow cells. */
  public static int valueOffset(byte[] page, int off) {
    int flags = page[off];
    int keyLen = SlottedPage.keyLength(page, off);
    int ko = SlottedPage.keyOffset(page, off, true);
    return ko + SlottedPage.inlineKeyLength(flags, keyLen);
  }

  /** The inline key of a cell without {@link SlottedPage#KEY_OVERFLOW}. */
  public static byte[] inlineKey(byte[] page, int off) {
    int keyLen = SlottedPage.keyLength(page, off);
    int ko = SlottedPage.keyOffset(page, off, true);
    return java.util.Arrays.copyOfRange(page, ko, ko + keyLen);
  }

  /** The inline value of a cell without {@link SlottedPage#VALUE_OVERFLOW}. */
  public static byte[] inlineValue(byte[] page, int off) {
    int vo = valueOffset(page, off);
    return java.util.Arrays.copyOfRange(page, vo, vo + valueLength(page, off));
  }

  public static long chainFirst(byte[] page, int off) {
    return FixedLE.getLong(page, valueOffset(page, off));
  }

  public static long chainId(byte[] page, int off) {
    return FixedLE.getLong(page, valueOffset(page, off) + 8);
  }
}
