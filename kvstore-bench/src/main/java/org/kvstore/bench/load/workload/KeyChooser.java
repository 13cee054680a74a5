package org.kvstore.bench.load.workload;

import java.util.SplittableRandom;

/**
 * Picks the record number of each operation.
 *
 * <p>Thread safety: thread-safe; each thread passes its own random source.
 */
public interface KeyChooser {

  /** A record number in [0, key space's records). */
  long next(SplittableRandom random);

  static KeyChooser of(KeyDistribution distribution, KeySpace space, long seed) {
    return switch (distribution) {
      case UNIFORM -> new UniformKeyChooser(space);
      case ZIPFIAN -> new ScrambledZipfianKeyChooser(space.initialRecords());
      case SEQUENTIAL -> new SequentialKeyChooser(space.initialRecords());
      case SHUFFLED -> new ShuffledKeyChooser(space.initialRecords(), seed);
      case LATEST -> new LatestKeyChooser(space);
    };
  }
}
