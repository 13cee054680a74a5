package org.kvstore.server.command;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * A number as Redis' INCRBYFLOAT holds it: an x86 80-bit {@code long double} (a 64-bit significand,
 * binary exponents down to the subnormal 2^-16445, overflow to infinity at 2^16384), so that
 * INCRBYFLOAT reads, adds and writes numbers to the same bytes as Redis on x86-64: it parses with
 * {@code strtold} (decimal, hexadecimal {@code 0x1.8p3}, {@code inf}), adds with one rounding to
 * nearest-even, and writes {@code "%.17Lf"} without trailing zeros ({@code 1 + 1e-17} is
 * {@code 1.00000000000000001}, {@code 1e-20} is {@code 0}, {@code 1e30} is
 * {@code 1000000000000000000024696061952}).
 *
 * <p>A finite value is kept exactly, as a {@link BigDecimal} (every binary fraction has a finite
 * decimal expansion); infinities as flags. NaN is never held: the parser refuses it and an
 * addition that would make it reports infinity, since INCRBYFLOAT refuses both alike.
 *
 * <p>Thread safety: immutable.
 */
public final class LongDouble {
  /** Significand bits, the integer bit included. */
  private static final int PRECISION = 64;
  /** The exponent of the smallest normal value, 2^-16382. */
  private static final int MIN_EXPONENT = -16382;
  /** Values at or beyond 2^16384 overflow. */
  private static final int MAX_EXPONENT = 16383;
  /** Redis' MAX_LONG_DOUBLE_CHARS: a longer argument is not a valid float. */
  private static final int MAX_CHARS = 5 * 1024;

  public static final LongDouble ZERO = new LongDouble(BigDecimal.ZERO, 0);

  /** Exact value when finite. */
  private final BigDecimal value;
  /** 0 finite, 1 +infinity, -1 -infinity. */
  private final int infinity;

  private LongDouble(BigDecimal value, int infinity) {
    this.value = value;
    this.infinity = infinity;
  }

  public boolean isInfinite() {
    return infinity != 0;
  }

  /**
   * Parses {@code bytes} as Redis' {@code string2ld}: the whole argument must be one number as
   * {@code strtold} reads it, without leading space; NaN, an overflow to infinity and an underflow
   * to zero are refused ({@code inf} itself is accepted).
   *
   * @throws CommandException {@code ERR value is not a valid float}
   */
  public static LongDouble parse(byte[] bytes) {
    if (bytes.length == 0 || bytes.length >= MAX_CHARS) {
      throw notFloat();
    }
    String s = new String(bytes, StandardCharsets.ISO_8859_1);
    int i = 0;
    int sign = 1;
    if (s.charAt(0) == '+' || s.charAt(0) == '-') {
      sign = s.charAt(0) == '-' ? -1 : 1;
      i = 1;
    }
    String rest = s.substring(i);
    if (rest.equalsIgnoreCase("inf") || rest.equalsIgnoreCase("infinity")) {
      return new LongDouble(null, sign);
    }
    BigDecimal exact = rest.length() > 1 && rest.charAt(0) == '0'
        && (rest.charAt(1) == 'x' || rest.charAt(1) == 'X')
        ? parseHex(rest.substring(2)) : parseDecimal(rest);
    if (exact == null) {
      throw notFloat(); // also NaN, spaces and anything after the number
    }
    LongDouble v = round(sign < 0 ? exact.negate() : exact);
    if (v.isInfinite() || (v.value.signum() == 0 && exact.signum() != 0)) {
      throw notFloat(); // strtold's ERANGE
    }
    return v;
  }

  /** {@code this + other}, rounded once as the x87 unit does. */
  public LongDouble add(LongDouble other) {
    if (isInfinite() || other.isInfinite()) {
      // inf + x is inf, inf - inf is NaN: either way not a number INCRBYFLOAT may store.
      return new LongDouble(null, isInfinite() ? infinity : other.infinity);
    }
    return round(value.add(other.value));
  }

  /**
   * Redis' human-friendly text ({@code ld2string} with {@code LD_STR_HUMAN}): {@code "%.17Lf"},
   * trailing zeros and a trailing point removed, {@code -0} written as {@code 0}. REQUIRES: finite.
   */
  public String toRedisString() {
    assert !isInfinite() : "infinite";
    String text = value.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
    int end = text.length();
    while (text.charAt(end - 1) == '0') {
      end--;
    }
    if (text.charAt(end - 1) == '.') {
      end--;
    }
    text = text.substring(0, end);
    return text.equals("-0") ? "0" : text;
  }

  @Override
  public String toString() {
    return isInfinite() ? (infinity > 0 ? "inf" : "-inf") : toRedisString();
  }

  /** {@code exact} rounded to the nearest long double, ties to even; infinite when it overflows. */
  static LongDouble round(BigDecimal exact) {
    if (exact.signum() == 0) {
      return ZERO;
    }
    // |exact| = num / den
    BigDecimal abs = exact.abs();
    BigInteger num;
    BigInteger den;
    if (abs.scale() <= 0) {
      num = abs.unscaledValue().multiply(BigInteger.TEN.pow(-abs.scale()));
      den = BigInteger.ONE;
    } else {
      num = abs.unscaledValue();
      den = BigInteger.TEN.pow(abs.scale());
    }
    // e = floor(log2(|exact|))
    int e = num.bitLength() - den.bitLength();
    if (compareShifted(num, den, e) < 0) {
      e--;
    }
    // The last significand bit is worth 2^q.
    int q = Math.max(e, MIN_EXPONENT) - (PRECISION - 1);
    // significand = round(|exact| / 2^q)
    BigInteger n = q >= 0 ? num : num.shiftLeft(-q);
    BigInteger d = q >= 0 ? den.shiftLeft(q) : den;
    BigInteger[] qr = n.divideAndRemainder(d);
    BigInteger m = qr[0];
    int half = qr[1].shiftLeft(1).compareTo(d);
    if (half > 0 || (half == 0 && m.testBit(0))) {
      m = m.add(BigInteger.ONE);
    }
    if (m.bitLength() > PRECISION) { // rounded up to the next power of two
      m = m.shiftRight(1);
      q++;
    }
    if (q + PRECISION - 1 > MAX_EXPONENT) {
      return new LongDouble(null, exact.signum());
    }
    BigDecimal r = q >= 0
        ? new BigDecimal(m.shiftLeft(q))
        : new BigDecimal(m.multiply(BigInteger.valueOf(5).pow(-q)), -q);
    return new LongDouble(exact.signum() < 0 ? r.negate() : r, 0);
  }

  /** Compares {@code num} with {@code den * 2^e}. */
  private static int compareShifted(BigInteger num, BigInteger den, int e) {
    return e >= 0 ? num.compareTo(den.shiftLeft(e)) : num.shiftLeft(-e).compareTo(den);
  }

  /**
   * {@code digits[.digits][e[sign]digits]} (at least one digit before or after the point), or
   * null.
   */
  private static BigDecimal parseDecimal(String s) {
    int n = s.length();
    int i = 0;
    int digits = 0;
    while (i < n && isDigit(s.charAt(i))) {
      i++;
      digits++;
    }
    if (i < n && s.charAt(i) == '.') {
      i++;
      while (i < n && isDigit(s.charAt(i))) {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      return null;
    }
    String mantissa = s.substring(0, i);
    long exponent = 0;
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      exponent = parseExponent(s, i + 1);
      if (exponent == Long.MIN_VALUE) {
        return null;
      }
    } else if (i != n) {
      return null;
    }
    if (mantissa.endsWith(".")) {
      mantissa = mantissa.substring(0, mantissa.length() - 1);
    }
    if (mantissa.startsWith(".")) {
      mantissa = "0" + mantissa;
    }
    BigDecimal m = new BigDecimal(mantissa);
    if (m.signum() == 0) {
      return BigDecimal.ZERO;
    }
    // Far beyond the range either way: keep the BigDecimal small, the rounding still over- or
    // underflows.
    long magnitude = exponent + m.precision() - m.scale();
    if (magnitude > 5000) {
      exponent = 5000 - (m.precision() - m.scale());
    } else if (magnitude < -5000) {
      exponent = -5000 - (m.precision() - m.scale());
    }
    return m.scaleByPowerOfTen((int) exponent);
  }

  /**
   * {@code hexdigits[.hexdigits][p[sign]digits]} after {@code 0x} (at least one hex digit), or
   * null.
   */
  private static BigDecimal parseHex(String s) {
    int n = s.length();
    int i = 0;
    BigInteger m = BigInteger.ZERO;
    int digits = 0;
    int fractionDigits = 0;
    boolean point = false;
    for (; i < n; i++) {
      char c = s.charAt(i);
      int d = Character.digit(c, 16);
      if (d >= 0 && c < 128) {
        m = m.shiftLeft(4).or(BigInteger.valueOf(d));
        digits++;
        if (point) {
          fractionDigits++;
        }
      } else if (c == '.' && !point) {
        point = true;
      } else {
        break;
      }
    }
    if (digits == 0) {
      return null;
    }
    long exponent = 0;
    if (i < n && (s.charAt(i) == 'p' || s.charAt(i) == 'P')) {
      exponent = parseExponent(s, i + 1);
      if (exponent == Long.MIN_VALUE) {
        return null;
      }
    } else if (i != n) {
      return null;
    }
    if (m.signum() == 0) {
      return BigDecimal.ZERO;
    }
    long shift = exponent - 4L * fractionDigits;
    long magnitude = shift + m.bitLength();
    if (magnitude > 20000) {
      shift = 20000 - m.bitLength();
    } else if (magnitude < -20000) {
      shift = -20000 - m.bitLength();
    }
    return shift >= 0
        ? new BigDecimal(m.shiftLeft((int) shift))
        : new BigDecimal(m.multiply(BigInteger.valueOf(5).pow((int) -shift)), (int) -shift);
  }

  /** {@code [sign]digits} from {@code i} to the end, clamped to +-10^9; Long.MIN_VALUE if malformed. */
  private static long parseExponent(String s, int i) {
    int n = s.length();
    boolean negative = false;
    if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
      negative = s.charAt(i) == '-';
      i++;
    }
    if (i == n) {
      return Long.MIN_VALUE;
    }
    long e = 0;
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (!isDigit(c)) {
        return Long.MIN_VALUE;
      }
      e = Math.min(1_000_000_000L, e * 10 + (c - '0'));
    }
    return negative ? -e : e;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static CommandException notFloat() {
    return new CommandException(RedisNumbers.NOT_FLOAT);
  }
}
