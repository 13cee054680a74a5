package org.kvstore.bench.load.workload;

import java.util.SplittableRandom;

/**
 * YCSB's {@code SkewedLatestGenerator}: the newest record is the most popular, then the one before
 * it, and so on by a zipfian draw over the preloaded record count (skew 0.99).
 *
 * <p>Thread safety: thread-safe; each thread passes its own random source.
 */
final class LatestKeyChooser implements KeyChooser {
  private final KeySpace space;
  private final ZipfianGenerator zipfian;

  LatestKeyChooser(KeySpace space) {
    this.space = space;
    this.zipfian = new ZipfianGenerator(space.initialRecords(), ZipfianGenerator.YCSB_CONSTANT);
  }

  @Override
  public long next(SplittableRandom random) {
    long newest = space.records() - 1;
    return Math.max(0, newest - zipfian.next(random));
  }
}
