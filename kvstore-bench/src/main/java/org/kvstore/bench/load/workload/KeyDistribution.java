package org.kvstore.bench.load.workload;

import java.util.Locale;

/**
 * How a workload picks the key of each operation among the key space's records.
 *
 * <p>Thread safety: immutable.
 */
public enum KeyDistribution {
  /** Every record equally likely. */
  UNIFORM,
  /** A few records are hot: YCSB's scrambled zipfian (constant 0.99), hot keys spread over the space. */
  ZIPFIAN,
  /** Records in key order, 0, 1, 2, ..., shared by all threads (each record once per pass). */
  SEQUENTIAL,
  /** Each record once per pass, in a random order shared by all threads (the seeds' "random order"). */
  SHUFFLED,
  /** The most recently inserted records are the hottest (YCSB's latest, used by workload D). */
  LATEST;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static KeyDistribution parse(String text) {
    for (KeyDistribution d : values()) {
      if (d.label().equals(text.trim().toLowerCase(Locale.ROOT))) {
        return d;
      }
    }
    throw new IllegalArgumentException(
        "key distribution '" + text + "' is not one of uniform, zipfian, sequential, shuffled, latest");
  }
}
