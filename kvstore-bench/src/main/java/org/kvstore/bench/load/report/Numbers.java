package org.kvstore.bench.load.report;

import java.util.Locale;

/**
 * How every number is printed, the same in the CSV, the JSON and the Markdown tables, so a report's
 * figures can be checked against its CSV by text.
 *
 * <p>Thread safety: stateless.
 */
public final class Numbers {
  private Numbers() {}

  /** Milliseconds with microsecond resolution. */
  public static String millis(double ms) {
    return String.format(Locale.ROOT, "%.3f", ms);
  }

  /** Operations per second, one decimal. */
  public static String rate(double opsPerSecond) {
    return String.format(Locale.ROOT, "%.1f", opsPerSecond);
  }

  /** Seconds with millisecond resolution. */
  public static String seconds(double s) {
    return String.format(Locale.ROOT, "%.3f", s);
  }

  /** A fraction as a percentage, one decimal. */
  public static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
  }

  /** A ratio, two decimals. */
  public static String ratio(double r) {
    return String.format(Locale.ROOT, "%.2f", r);
  }
}
