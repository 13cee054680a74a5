package org.kvstore.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Big-endian reads of byte strings as numbers. No persisted format stores big-endian integers;
 * the engines use these to compare 8-byte key prefixes as unsigned longs, which order the same way
 * as the bytes (unsigned, lexicographic) only when read big-endian.
 *
 * <p>Thread safety: stateless.
 */
public final class FixedBE {
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private FixedBE() {}

  /**
   * Bytes {@code [from, from+8)} of {@code src} as a big-endian long, those at or past {@code
   * limit} read as zero: an unsigned comparison of two such numbers orders the byte strings the
   * same way whenever they differ (the key prefixes compared inline by the memtable and the SSTable
   * block search). One load when all 8 bytes are below {@code limit}.
   */
  public static long getLongPadded(byte[] src, int from, int limit) {
    if (from + 8 <= limit) {
      return (long) LONG.get(src, from);
    }
    long v = 0;
    for (int i = from; i < from + 8; i++) {
      v = (v << 8) | (i < limit ? src[i] & 0xFF : 0);
    }
    return v;
  }
}
