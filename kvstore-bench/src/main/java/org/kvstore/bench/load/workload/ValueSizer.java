package org.kvstore.bench.load.workload;

import java.util.SplittableRandom;

/**
 * The size of each written value: fixed ({@code min == max}) or uniform in [min, max].
 *
 * <p>Thread safety: immutable.
 */
public record ValueSizer(int minBytes, int maxBytes) {
  public ValueSizer {
    if (minBytes < 0 || maxBytes < minBytes) {
      throw new IllegalArgumentException("value size must be 0 <= min <= max, was " + minBytes + ".." + maxBytes);
    }
  }

  public static ValueSizer fixed(int bytes) {
    return new ValueSizer(bytes, bytes);
  }

  /** Parses {@code 500}, {@code 4KiB}, {@code 1MiB} or a range {@code 100-1000}. */
  public static ValueSizer parse(String text) {
    int dash = text.indexOf('-');
    if (dash > 0) {
      return new ValueSizer(bytes(text.substring(0, dash)), bytes(text.substring(dash + 1)));
    }
    return fixed(bytes(text));
  }

  static int bytes(String text) {
    String t = text.trim();
    long unit = 1;
    if (t.endsWith("KiB")) {
      unit = 1024;
    } else if (t.endsWith("MiB")) {
      unit = 1024 * 1024;
    }
    String digits = unit == 1 ? t.replaceAll("B$", "") : t.substring(0, t.length() - 3);
    return Math.toIntExact(Long.parseLong(digits.trim()) * unit);
  }

  public boolean isFixed() {
    return minBytes == maxBytes;
  }

  public int next(SplittableRandom random) {
    return isFixed() ? minBytes : random.nextInt(minBytes, maxBytes + 1);
  }

  @Override
  public String toString() {
    return isFixed() ? minBytes + " B" : minBytes + "-" + maxBytes + " B";
  }
}
