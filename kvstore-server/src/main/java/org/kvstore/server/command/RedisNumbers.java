package org.kvstore.server.command;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Integers as Redis reads and writes them: base-10, an optional '-', no '+', no spaces, no leading
 * zeros, within a signed 64-bit range (Redis' {@code string2ll}). Floats for INCRBYFLOAT: decimal
 * or exponent notation without spaces (Redis' {@code string2ld}), computed exactly in decimal and
 * written with at most 17 significant digits, no exponent and no trailing zeros, as Redis writes
 * its {@code long double} results ({@code 10.5 + 0.1} is {@code 10.6}, {@code 5.0e3} is {@code 5000}).
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
  /** Redis' MAX_LONG_DOUBLE_CHARS: longer float strings are refused. */
  private static final int MAX_FLOAT_CHARS = 5 * 1024;
  /** About the largest long double: a result at or beyond it is Redis' infinity. */
  private static final BigDecimal FLOAT_LIMIT = new BigDecimal("1e4932");
  private static final MathContext FLOAT_DIGITS = new MathContext(17, RoundingMode.HALF_EVEN);

  /** Parses a float strictly; throws {@code ERR value is not a valid float}. */
  public static BigDecimal parseFloat(byte[] bytes) {
    if (bytes.length == 0 || bytes.length > MAX_FLOAT_CHARS) {
      throw new CommandException(NOT_FLOAT);
    }
    for (byte b : bytes) {
      if (!((b >= '0' && b <= '9') || b == '.' || b == '-' || b == '+' || b == 'e' || b == 'E')) {
        throw new CommandException(NOT_FLOAT); // also spaces, "inf" and "nan"
      }
    }
    try {
      return new BigDecimal(new String(bytes, StandardCharsets.US_ASCII));
    } catch (NumberFormatException | ArithmeticException e) {
      throw new CommandException(NOT_FLOAT);
    }
  }

  /** {@code value + by}, formatted as Redis does; throws when the result would be infinite. */
  public static byte[] addFloat(BigDecimal value, BigDecimal by) {
    BigDecimal sum = value.add(by).round(FLOAT_DIGITS);
    if (sum.abs().compareTo(FLOAT_LIMIT) >= 0) {
      throw new CommandException("ERR increment would produce NaN or Infinity");
    }
    String text = sum.signum() == 0 ? "0" : sum.stripTrailingZeros().toPlainString();
    return text.getBytes(StandardCharsets.US_ASCII);
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
