package org.kvstore.lsm.sstable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Unsigned LEB128 variable-length integers (7 bits per byte, low group first, high bit set on every
 * byte but the last), as used by the SSTable blocks and the manifest.
 *
 * <p>Thread safety: stateless.
 */
public final class VarInts {
  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private VarInts() {}

  /** Writes {@code v} at {@code off}; returns the offset after it. REQUIRES: room for 10 bytes. */
  public static int put(byte[] dst, int off, long v) {
    while ((v & ~0x7FL) != 0) {
      dst[off++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    dst[off++] = (byte) v;
    return off;
  }

  /** Bytes {@link #put} uses for {@code v}. */
  public static int size(long v) {
    int n = 1;
    while ((v & ~0x7FL) != 0) {
      n++;
      v >>>= 7;
    }
    return n;
  }

  /**
   * Reads a varint at {@code pos[0]} and advances it.
   *
   * @throws IllegalArgumentException when it runs past {@code limit} or is longer than 10 bytes
   */
  public static long get(byte[] src, int[] pos, int limit) {
    long v = 0;
    int p = pos[0];
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= limit) {
        throw new IllegalArgumentException("truncated varint at " + pos[0]);
      }
      int b = src[p++];
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        pos[0] = p;
        return v;
      }
    }
    throw new IllegalArgumentException("varint longer than 10 bytes at " + pos[0]);
  }

  /** Reads a varint that must fit an int from 0 to {@link Integer#MAX_VALUE}. */
  public static int getInt(byte[] src, int[] pos, int limit) {
    long v = get(src, pos, limit);
    if (v < 0 || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("varint " + v + " out of int range at " + pos[0]);
    }
    return (int) v;
  }

  public static void putIntLE(byte[] dst, int off, int v) {
    dst[off] = (byte) v;
    dst[off + 1] = (byte) (v >>> 8);
    dst[off + 2] = (byte) (v >>> 16);
    dst[off + 3] = (byte) (v >>> 24);
  }

  /** The little-endian int at {@code off}: one load. */
  public static int getIntLE(byte[] src, int off) {
    return (int) INT_LE.get(src, off);
  }

  public static void putLongLE(byte[] dst, int off, long v) {
    for (int i = 0; i < 8; i++) {
      dst[off + i] = (byte) (v >>> (8 * i));
    }
  }

  /** The little-endian long at {@code off}: one load. */
  public static long getLongLE(byte[] src, int off) {
    return (long) LONG_LE.get(src, off);
  }

  /**
   * Bytes {@code [from, from+8)} of {@code src} as a big-endian long, those at or past
   * {@code limit} read as zero: an unsigned comparison of two such numbers orders the byte strings
   * the same way whenever they differ (the key prefixes compared inline by the memtable and the
   * SSTable block search). One load when all 8 bytes are below {@code limit}.
   */
  public static long getLongBEPadded(byte[] src, int from, int limit) {
    if (from + 8 <= limit) {
      return (long) LONG_BE.get(src, from);
    }
    long v = 0;
    for (int i = from; i < from + 8; i++) {
      v = (v << 8) | (i < limit ? src[i] & 0xFF : 0);
    }
    return v;
  }
}
