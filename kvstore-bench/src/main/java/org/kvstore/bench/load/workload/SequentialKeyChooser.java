package org.kvstore.bench.load.workload;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/** Records 0, 1, 2, ... handed out once each across all threads, wrapping after the last. Thread safety: thread-safe. */
final class SequentialKeyChooser implements KeyChooser {
  private final long records;
  private final AtomicLong next = new AtomicLong();

  SequentialKeyChooser(long records) {
    this.records = records;
  }

  @Override
  public long next(SplittableRandom random) {
    return Math.floorMod(next.getAndIncrement(), records);
  }
}
