package org.kvstore.server.command;

import java.nio.charset.StandardCharsets;

/**
 * Integers as Redis reads and writes them: base-10, an optional '-', no '+', no spaces, no leading
 * zeros, within a signed 64-bit range (Redis' {@code string2ll}). Floats for INCRBYFLOAT are
 * Redis' {@code long double}s: {@link LongDouble}.
 *
 * <p>Thread safety: stateless.
 */
public final class RedisNumbers {
  private RedisNumbers() {}

  /** Parses {@code bytes} strictly; throws {@code ERR value is not an integer or out of range}. */
  public static long parseLong(byte[] bytes) {
    long v = parseOrMin(bytes);
    if (v == Long.MIN_VALUE && !isMinValue(bytes)) {
      throw new CommandException(CommandException.NOT_INTEGER);
    }
    return v;
  }

  /** Whether {@code bytes} is a strict integer. */
  public static boolean isLong(byte[] bytes) {
    return parseOrMin(bytes) != Long.MIN_VALUE || isMinValue(bytes);
  }

  public static int parseInt(byte[] bytes) {
    long v = parseLong(bytes);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new CommandException(CommandException.NOT_INTEGER);
    }
    return (int) v;
  }

  public static final String NOT_FLOAT = "ERR value is not a valid float";

  /** Parses a float as Redis does ({@link LongDouble#parse}); throws {@code ERR value is not a valid float}. */
  public static LongDouble parseFloat(byte[] bytes) {
    return LongDouble.parse(bytes);
  }

  public static byte[] toBytes(long v) {
    return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
  }

  private static boolean isMinValue(byte[] bytes) {
    return "-9223372036854775808".equals(new String(bytes, StandardCharsets.ISO_8859_1));
  }

  /** The value, or Long.MIN_VALUE when invalid (callers disambiguate the real minimum). */
  private static long parseOrMin(byte[] b) {
    int n = b.length;
    if (n == 0 || n > 20) {
      return Long.MIN_VALUE;
    }
    int i = 0;
    boolean negative = false;
    if (b[0] == '-') {
      negative = true;
      i = 1;
      if (n == 1) {
        return Long.MIN_VALUE;
      }
    }
    if (b[i] == '0') {
      return n == 1 ? 0 : Long.MIN_VALUE;
    }
    long v = 0; // accumulated negatively: -Long.MIN_VALUE does not fit
    for (; i < n; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        return Long.MIN_VALUE;
      }
      if (v < (Long.MIN_VALUE + d) / 10) {
        return Long.MIN_VALUE; // overflow
      }
      v = v * 10 - d;
    }
    if (!negative) {
      if (v == Long.MIN_VALUE) {
        return Long.MIN_VALUE;
      }
      return -v;
    }
    return v;
  }
}
