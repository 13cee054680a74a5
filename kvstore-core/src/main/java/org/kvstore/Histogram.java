package org.kvstore;

import java.util.List;

/**
 * A histogram at one moment: how many recorded values fell into each bucket, with their sum and the
 * largest one. The unit of the values is the unit of the statistic that holds the histogram (for
 * example nanoseconds for {@link DurabilityStats#walSyncNanos()}).
 *
 * <p>Bucket {@code i} counts the values {@code v} with {@code upperBounds[i-1] < v <= upperBounds[i]};
 * the last bucket, one past the bounds, counts everything above the last bound. Counts are per
 * bucket, not cumulative.
 *
 * @param upperBounds the inclusive upper bounds of all buckets but the last, strictly ascending
 * @param bucketCounts the values per bucket; one more entry than {@code upperBounds}
 * @param sum the sum of all values recorded
 * @param max the largest value recorded, 0 when none was
 *
 * <p>Thread safety: immutable. The fields of a snapshot are read one after the other while values
 * may be recorded, so under load {@link #count()} and {@link #sum()} may differ by a value in flight.
 */
public record Histogram(List<Long> upperBounds, List<Long> bucketCounts, long sum, long max) {
  public Histogram {
    upperBounds = List.copyOf(upperBounds);
    bucketCounts = List.copyOf(bucketCounts);
    if (bucketCounts.size() != upperBounds.size() + 1) {
      throw new IllegalArgumentException("bucketCounts: " + bucketCounts.size() + " buckets for "
          + upperBounds.size() + " upper bounds; there must be one more (the overflow bucket)");
    }
    for (int i = 1; i < upperBounds.size(); i++) {
      if (upperBounds.get(i) <= upperBounds.get(i - 1)) {
        throw new IllegalArgumentException("upperBounds: not strictly ascending at index " + i);
      }
    }
  }

  /** The number of values recorded: the sum of the bucket counts. */
  public long count() {
    long n = 0;
    for (long c : bucketCounts) {
      n += c;
    }
    return n;
  }
}
