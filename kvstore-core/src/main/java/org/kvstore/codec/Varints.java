package org.kvstore.codec;

/**
 * Unsigned LEB128 variable-length integers: 7 bits per byte, the low group first, the high bit set
 * on every byte but the last. A {@code long} takes 1 to {@value #MAX_BYTES} bytes (a negative one,
 * read as unsigned, takes 10); an {@code int} from 0 to {@link Integer#MAX_VALUE} takes 1 to
 * {@value #MAX_INT_BYTES}. The SSTable blocks, the manifest and the B+tree cells use this encoding.
 *
 * <p>Decoders take the array, the position and a {@code limit} (exclusive) and throw
 * {@link CodecException} naming the value's offset when the bytes run past the limit, when the
 * encoding is too long, or when the value is out of the asked range; they never read at or past
 * {@code limit}.
 *
 * <p>Thread safety: stateless.
 */
public final class Varints {
  /** The most bytes a varint takes: a {@code long} with its top bit set. */
  public static final int MAX_BYTES = 10;
  /** The most bytes a varint of an {@code int} from 0 to {@link Integer#MAX_VALUE} takes. */
  public static final int MAX_INT_BYTES = 5;

  private Varints() {}

  /** The bytes {@link #put} writes for {@code v}: 1 to {@value #MAX_BYTES}. */
  public static int sizeOf(long v) {
    int n = 1;
    while ((v & ~0x7FL) != 0) {
      n++;
      v >>>= 7;
    }
    return n;
  }

  /**
   * Writes {@code v} (read as unsigned) at {@code dst[off]}; returns the offset after it.
   * REQUIRES: room for {@link #sizeOf}{@code (v)} bytes.
   */
  public static int put(byte[] dst, int off, long v) {
    while ((v & ~0x7FL) != 0) {
      dst[off++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    dst[off++] = (byte) v;
    return off;
  }

  /**
   * Reads the varint at {@code pos[0]} and advances {@code pos[0]} past it.
   *
   * @throws CodecException when it runs to {@code limit} or is longer than {@value #MAX_BYTES}
   *     bytes ({@code pos[0]} is then unchanged)
   */
  public static long get(byte[] src, int[] pos, int limit) {
    long v = 0;
    int p = pos[0];
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= limit) {
        throw new CodecException(pos[0], "truncated varint (limit " + limit + ")");
      }
      int b = src[p++];
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        pos[0] = p;
        return v;
      }
    }
    throw new CodecException(pos[0], "varint longer than " + MAX_BYTES + " bytes");
  }

  /**
   * As {@link #get}, for a value that must be from 0 to {@link Integer#MAX_VALUE}.
   *
   * @throws CodecException also when the value is out of that range
   */
  public static int getInt(byte[] src, int[] pos, int limit) {
    int start = pos[0];
    long v = get(src, pos, limit);
    if (v < 0 || v > Integer.MAX_VALUE) {
      pos[0] = start;
      throw new CodecException(start, "varint " + Long.toUnsignedString(v) + " out of int range");
    }
    return (int) v;
  }

  /**
   * The value, from 0 to {@link Integer#MAX_VALUE}, of the varint at {@code src[off]}, for callers
   * that step over it with {@link #endOf} (the B+tree cells).
   *
   * @throws CodecException when it runs to {@code limit}, is longer than {@value #MAX_INT_BYTES}
   *     bytes or is out of that range
   */
  public static int getIntAt(byte[] src, int off, int limit) {
    int v = 0;
    int p = off;
    for (int shift = 0; shift < 7 * MAX_INT_BYTES; shift += 7) {
      if (p >= limit) {
        throw new CodecException(off, "truncated varint (limit " + limit + ")");
      }
      int b = src[p++];
      v |= (b & 0x7F) << shift;
      if (b >= 0) {
        if (shift == 7 * (MAX_INT_BYTES - 1) && b > 0x07) {
          throw new CodecException(off, "varint out of int range");
        }
        return v;
      }
    }
    throw new CodecException(off, "varint longer than " + MAX_INT_BYTES + " bytes");
  }

  /**
   * The offset just after the varint at {@code src[off]} (its value is not checked).
   *
   * @throws CodecException when it runs to {@code limit} or is longer than {@value #MAX_BYTES}
   *     bytes
   */
  public static int endOf(byte[] src, int off, int limit) {
    int p = off;
    int last = Math.min(limit, off + MAX_BYTES);
    while (p < last) {
      if (src[p++] >= 0) {
        return p;
      }
    }
    if (p - off >= MAX_BYTES) {
      throw new CodecException(off, "varint longer than " + MAX_BYTES + " bytes");
    }
    throw new CodecException(off, "truncated varint (limit " + limit + ")");
  }
}
