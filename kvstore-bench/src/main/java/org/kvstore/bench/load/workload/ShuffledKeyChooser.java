package org.kvstore.bench.load.workload;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every record once per pass in a random order shared by all threads: the i-th draw is
 * {@link KeyPermutation#apply} of i, so no table of n entries is kept.
 *
 * <p>Thread safety: thread-safe.
 */
final class ShuffledKeyChooser implements KeyChooser {
  private final long records;
  private final KeyPermutation permutation;
  private final AtomicLong next = new AtomicLong();

  ShuffledKeyChooser(long records, long seed) {
    this.records = records;
    this.permutation = new KeyPermutation(records, seed);
  }

  @Override
  public long next(SplittableRandom random) {
    return permutation.apply(Math.floorMod(next.getAndIncrement(), records));
  }
}
