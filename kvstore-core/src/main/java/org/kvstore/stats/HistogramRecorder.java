package org.kvstore.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.kvstore.Histogram;

/**
 * Records values into fixed buckets, for statistics that are read rarely (a scrape) and written on
 * busy paths: recording is a binary search over the bounds and three uncontended additions, with no
 * lock and no allocation. {@link #snapshot()} reads it as a {@link Histogram}.
 *
 * <p>Thread safety: thread-safe; a snapshot reads each counter at some moment during the call.
 */
public final class HistogramRecorder {
  /**
   * Bounds for durations in nanoseconds, 10 µs to 60 s: wide enough for an fsync on a fast SSD and
   * a checkpoint of a large store alike.
   */
  private static final long[] LATENCY_BOUNDS_NANOS = {
      10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
      1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000,
      100_000_000, 250_000_000, 500_000_000,
      1_000_000_000L, 2_500_000_000L, 5_000_000_000L, 10_000_000_000L, 30_000_000_000L, 60_000_000_000L};

  private final long[] bounds;
  private final List<Long> boundList;
  private final LongAdder[] buckets;
  private final LongAdder sum = new LongAdder();
  private final LongAccumulator max = new LongAccumulator(Math::max, 0);

  /** A recorder with these inclusive upper bounds (strictly ascending) and an overflow bucket. */
  public HistogramRecorder(long... upperBounds) {
    this.bounds = upperBounds.clone();
    List<Long> list = new ArrayList<>(bounds.length);
    for (int i = 0; i < bounds.length; i++) {
      if (i > 0 && bounds[i] <= bounds[i - 1]) {
        throw new IllegalArgumentException("upperBounds: not strictly ascending at index " + i);
      }
      list.add(bounds[i]);
    }
    this.boundList = List.copyOf(list);
    this.buckets = new LongAdder[bounds.length + 1];
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = new LongAdder();
    }
  }

  /** A recorder of durations in nanoseconds, 10 µs to 60 s. */
  public static HistogramRecorder forNanos() {
    return new HistogramRecorder(LATENCY_BOUNDS_NANOS);
  }

  /** A recorder of counts with the powers of two from 1 to {@code 2^maxExponent} as bounds. */
  public static HistogramRecorder forPowersOfTwo(int maxExponent) {
    long[] b = new long[maxExponent + 1];
    for (int i = 0; i <= maxExponent; i++) {
      b[i] = 1L << i;
    }
    return new HistogramRecorder(b);
  }

  /** Records one value. */
  public void record(long value) {
    int i = Arrays.binarySearch(bounds, value);
    buckets[i >= 0 ? i : -i - 1].increment();
    sum.add(value);
    max.accumulate(value);
  }

  /** The values recorded so far. */
  public Histogram snapshot() {
    List<Long> counts = new ArrayList<>(buckets.length);
    for (LongAdder b : buckets) {
      counts.add(b.sum());
    }
    return new Histogram(boundList, counts, sum.sum(), max.get());
  }
}
