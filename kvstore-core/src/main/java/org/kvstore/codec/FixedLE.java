package org.kvstore.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Fixed-width little-endian integers in byte arrays, each read or written with one access. Every
 * persisted format stores its fixed-width integers little-endian (the WAL writes them through a
 * little-endian {@link java.nio.ByteBuffer} instead).
 *
 * <p>Out-of-range offsets throw {@link IndexOutOfBoundsException}.
 *
 * <p>Thread safety: stateless.
 */
public final class FixedLE {
  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private FixedLE() {}

  /** The unsigned 16-bit integer at {@code src[off, off+2)}: 0 to 65535. */
  public static int getU16(byte[] src, int off) {
    return (short) SHORT.get(src, off) & 0xFFFF;
  }

  /** Writes the low 16 bits of {@code v} at {@code dst[off, off+2)}. */
  public static void putU16(byte[] dst, int off, int v) {
    SHORT.set(dst, off, (short) v);
  }

  public static int getInt(byte[] src, int off) {
    return (int) INT.get(src, off);
  }

  public static void putInt(byte[] dst, int off, int v) {
    INT.set(dst, off, v);
  }

  public static long getLong(byte[] src, int off) {
    return (long) LONG.get(src, off);
  }

  public static void putLong(byte[] dst, int off, long v) {
    LONG.set(dst, off, v);
  }
}
