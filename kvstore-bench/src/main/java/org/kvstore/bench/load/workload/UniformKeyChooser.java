package org.kvstore.bench.load.workload;

import java.util.SplittableRandom;

/** Every existing record equally likely. Thread safety: thread-safe. */
final class UniformKeyChooser implements KeyChooser {
  private final KeySpace space;

  UniformKeyChooser(KeySpace space) {
    this.space = space;
  }

  @Override
  public long next(SplittableRandom random) {
    return random.nextLong(space.records());
  }
}
