package org.kvstore.server.metrics;

/**
 * The upper bounds of the request latency histograms ({@code kv_request_duration_seconds}), the
 * same for every protocol and command, so that a request is counted by one array increment: the
 * recorder finds the bucket with {@link #index} and adds to that bucket's counter; the collector
 * turns the per-bucket counts into Prometheus' cumulative buckets when it is scraped.
 *
 * <p>Thread safety: immutable.
 */
public final class LatencyBuckets {
  /** Upper bounds in nanoseconds; a last, implicit bucket holds everything above (+Inf). */
  private static final long[] BOUNDS_NANOS = {
      25_000, 50_000, 100_000, 250_000, 500_000,
      1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000,
      100_000_000, 250_000_000, 500_000_000, 1_000_000_000L, 2_500_000_000L, 5_000_000_000L, 10_000_000_000L};

  /** Number of buckets, the +Inf one included. */
  public static final int COUNT = BOUNDS_NANOS.length + 1;

  private LatencyBuckets() {}

  /** The bucket of a request that took {@code nanos}: the first whose bound is at least it. */
  public static int index(long nanos) {
    for (int i = 0; i < BOUNDS_NANOS.length; i++) {
      if (nanos <= BOUNDS_NANOS[i]) {
        return i;
      }
    }
    return BOUNDS_NANOS.length;
  }

  /** The upper bounds in seconds, +Inf last. */
  static double[] upperBoundsSeconds() {
    double[] out = new double[COUNT];
    for (int i = 0; i < BOUNDS_NANOS.length; i++) {
      out[i] = BOUNDS_NANOS[i] / 1e9;
    }
    out[BOUNDS_NANOS.length] = Double.POSITIVE_INFINITY;
    return out;
  }
}
