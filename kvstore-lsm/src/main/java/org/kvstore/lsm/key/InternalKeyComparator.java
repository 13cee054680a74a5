package org.kvstore.lsm.key;

import java.util.Arrays;

/**
 * The order of internal keys: user key ascending in unsigned byte order, then sequence number
 * descending, then kind descending (PUT before DELETE at one sequence number, which never happens in
 * practice since sequence numbers are unique per table).
 *
 * <p>Thread safety: stateless.
 */
public final class InternalKeyComparator {
  private InternalKeyComparator() {}

  public static int compare(
      byte[] aKey, long aSeq, int aKind, byte[] bKey, long bSeq, int bKind) {
    int c = Arrays.compareUnsigned(aKey, bKey);
    if (c != 0) {
      return c;
    }
    if (aSeq != bSeq) {
      return aSeq > bSeq ? -1 : 1;
    }
    return Integer.compare(bKind, aKind);
  }

  /**
   * Compares two <em>encoded</em> internal keys (user key plus 8-byte trailer) held in arrays
   * without decoding them.
   */
  public static int compareEncoded(byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
    int c =
        Arrays.compareUnsigned(
            a, aOff, aOff + aLen - InternalKey.TRAILER_BYTES, b, bOff, bOff + bLen - InternalKey.TRAILER_BYTES);
    if (c != 0) {
      return c;
    }
    long at = InternalKey.getTrailer(a, aOff + aLen - InternalKey.TRAILER_BYTES);
    long bt = InternalKey.getTrailer(b, bOff + bLen - InternalKey.TRAILER_BYTES);
    return Long.compareUnsigned(bt, at);
  }

  /** Compares two whole encoded internal keys. */
  public static int compareEncoded(byte[] a, byte[] b) {
    return compareEncoded(a, 0, a.length, b, 0, b.length);
  }
}
