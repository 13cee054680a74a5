package org.kvstore.bplus.page;

import static org.kvstore.bplus.page.SlottedPage.KEY_OVERFLOW;
import static org.kvstore.bplus.page.SlottedPage.VALUE_OVERFLOW;

import org.kvstore.Entry;
import org.kvstore.codec.FixedLE;
import org.kvstore.codec.Varints;

/**
 * Encodes and decodes leaf cells and the leaf header's expiry hint, laid out as
 * docs/format/bplus.md section 3.3 says. A cell ends with its optional metadata: the expiry time
 * ({@link #HAS_EXPIRY}) and the version ({@link #HAS_VERSION}); a cell with neither (every cell of
 * a version 1 page) has version 0 and no expiry.
 *
 * <p>Thread safety: stateless; callers hold the page's latch.
 */
public final class LeafPage {
  /** Flag bit: the cell ends with a u64 expiry time (ms since the epoch), before the version. */
  public static final int HAS_EXPIRY = 8;

  /** Flag bit: the cell ends with its version, a varint. */
  public static final int HAS_VERSION = 4;

  /** The leaf header's u32 expiry hint (the reserved field of a version 1 page, always 0 there). */
  static final int EXPIRY_HINT_OFFSET = 28;

  private static final long MAX_HINT = 0xFFFF_FFFFL;

  private LeafPage() {}

  public static int cellSize(byte[] page, int off) {
    int flags = page[off];
    int keyLen = Varints.getIntAt(page, off + 1, page.length);
    int p = Varints.endOf(page, off + 1, page.length);
    int valueLen = Varints.getIntAt(page, p, page.length);
    p = Varints.endOf(page, p, page.length);
    p += SlottedPage.inlineKeyLength(flags, keyLen) + ((flags & VALUE_OVERFLOW) != 0 ? 16 : valueLen);
    if ((flags & HAS_EXPIRY) != 0) {
      p += 8;
    }
    if ((flags & HAS_VERSION) != 0) {
      p = Varints.endOf(page, p, page.length);
    }
    return p - off;
  }

  /** Bytes of the metadata at the end of a cell with this expiry and version. */
  private static int metadataSize(long expiresAt, long version) {
    return (expiresAt != Entry.NO_EXPIRY ? 8 : 0) + (version != 0 ? Varints.sizeOf(version) : 0);
  }

  /** Size of an inline cell for these lengths, expiry ({@link Entry#NO_EXPIRY}: none) and version. */
  public static int inlineCellSize(int keyLen, int valueLen, long expiresAt, long version) {
    return 1 + Varints.sizeOf(keyLen) + Varints.sizeOf(valueLen) + keyLen + valueLen
        + metadataSize(expiresAt, version);
  }

  /** Size of a cell whose value (and, with {@code keyOverflow}, key) lives in a chain. */
  public static int overflowCellSize(
      int keyLen, int valueLen, boolean keyOverflow, long expiresAt, long version) {
    int inlineKey = keyOverflow ? SlottedPage.KEY_PREFIX_BYTES : keyLen;
    return 1 + Varints.sizeOf(keyLen) + Varints.sizeOf(valueLen) + inlineKey + 16
        + metadataSize(expiresAt, version);
  }

  /** Writes an inline cell at {@code off}. */
  public static void writeInlineCell(
      byte[] page, int off, byte[] key, byte[] value, long expiresAt, long version) {
    page[off] = (byte) metadataFlags(expiresAt, version);
    int p = Varints.put(page, off + 1, key.length);
    p = Varints.put(page, p, value.length);
    System.arraycopy(key, 0, page, p, key.length);
    System.arraycopy(value, 0, page, p + key.length, value.length);
    writeMetadata(page, p + key.length + value.length, expiresAt, version);
  }

  /** Writes a cell whose value (and maybe key) is in chain {@code chainId} starting at {@code first}. */
  public static void writeOverflowCell(
      byte[] page, int off, byte[] key, int valueLen, boolean keyOverflow, long first, long chainId,
      long expiresAt, long version) {
    page[off] = (byte) (VALUE_OVERFLOW | (keyOverflow ? KEY_OVERFLOW : 0)
        | metadataFlags(expiresAt, version));
    int p = Varints.put(page, off + 1, key.length);
    p = Varints.put(page, p, valueLen);
    int inlineKey = keyOverflow ? SlottedPage.KEY_PREFIX_BYTES : key.length;
    System.arraycopy(key, 0, page, p, inlineKey);
    p += inlineKey;
    FixedLE.putLong(page, p, first);
    FixedLE.putLong(page, p + 8, chainId);
    writeMetadata(page, p + 16, expiresAt, version);
  }

  private static int metadataFlags(long expiresAt, long version) {
    return (expiresAt != Entry.NO_EXPIRY ? HAS_EXPIRY : 0) | (version != 0 ? HAS_VERSION : 0);
  }

  private static void writeMetadata(byte[] page, int p, long expiresAt, long version) {
    if (expiresAt != Entry.NO_EXPIRY) {
      FixedLE.putLong(page, p, expiresAt);
      p += 8;
    }
    if (version != 0) {
      Varints.put(page, p, version);
    }
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

  public static boolean hasExpiry(byte[] page, int off) {
    return (page[off] & HAS_EXPIRY) != 0;
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

  /** Offset of the metadata: just after the inline value or the chain reference. */
  private static int metadataOffset(byte[] page, int off) {
    return valueOffset(page, off) + (isOverflow(page, off) ? 16 : valueLength(page, off));
  }

  /** The cell's expiry time, or {@link Entry#NO_EXPIRY}. */
  public static long expiresAt(byte[] page, int off) {
    if ((page[off] & HAS_EXPIRY) == 0) {
      return Entry.NO_EXPIRY;
    }
    return FixedLE.getLong(page, metadataOffset(page, off));
  }

  /** The cell's version: 0 without {@link #HAS_VERSION}. */
  public static long version(byte[] page, int off) {
    int flags = page[off];
    if ((flags & HAS_VERSION) == 0) {
      return 0;
    }
    int p = metadataOffset(page, off) + ((flags & HAS_EXPIRY) != 0 ? 8 : 0);
    return Varints.get(page, new int[] {p}, page.length);
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

  // ---- the expiry hint (leaf header offset 28) ----

  /**
   * The hint that bounds the page's expiry times from below: 0 when no cell of the page has an
   * expiry; 1 when some may expire before second 1 of the epoch (no bound); otherwise {@code h}
   * such that every expiry time in the page is at least {@code (h - 1) * 1000}. A removal leaves it
   * as it is (still a bound); a write that scans the page for expired cells makes it exact.
   */
  public static long expiryHint(byte[] page) {
    return FixedLE.getInt(page, EXPIRY_HINT_OFFSET) & MAX_HINT;
  }

  /**
   * Whether a cell of the page may be expired at {@code nowMillis}; false is exact (no cell is),
   * true may be wrong (the hint is only a bound). Lets a write skip the leaf scan for expired
   * cells until one can be there.
   */
  public static boolean mayHoldExpired(byte[] page, long nowMillis) {
    long hint = expiryHint(page);
    // A cell expiring at e >= bound is expired only when now > e (Entry.isExpired), so not while
    // now <= bound.
    return hint == 1 || (hint != 0 && nowMillis > (hint - 1) * 1000);
  }

  /** The hint for a cell expiring at {@code expiresAt} alone: 0 for {@link Entry#NO_EXPIRY}. */
  public static long hintFor(long expiresAt) {
    if (expiresAt == Entry.NO_EXPIRY) {
      return 0;
    }
    return expiresAt < 1000 ? 1 : Math.min(MAX_HINT, expiresAt / 1000 + 1);
  }

  /** Sets the hint to {@link #hintFor}{@code (minExpiresAt)}: the earliest expiry in the page. */
  public static void setExpiryHint(byte[] page, long minExpiresAt) {
    FixedLE.putInt(page, EXPIRY_HINT_OFFSET, (int) hintFor(minExpiresAt));
  }

  /**
   * Records that the cell at {@code off} was written: lowers the hint to its expiry, and stamps the
   * page with this build's leaf version.
   */
  public static void noteCellWritten(byte[] page, int off) {
    PageFormat.stampCurrentVersion(page);
    if ((page[off] & HAS_EXPIRY) == 0) {
      return;
    }
    long h = hintFor(expiresAt(page, off));
    long old = expiryHint(page);
    if (old == 0 || h < old) {
      FixedLE.putInt(page, EXPIRY_HINT_OFFSET, (int) h);
    }
  }
}
