package org.kvstore.bench.load.workload;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The records a run addresses, numbered from 0: the preloaded ones, then those its inserts add.
 *
 * <p>Thread safety: thread-safe.
 */
public final class KeySpace {
  private final long initialRecords;
  private final AtomicLong records;

  public KeySpace(long initialRecords) {
    if (initialRecords < 1) {
      throw new IllegalArgumentException("records must be at least 1, was " + initialRecords);
    }
    this.initialRecords = initialRecords;
    this.records = new AtomicLong(initialRecords);
  }

  public long initialRecords() {
    return initialRecords;
  }

  /** How many records exist now (the preloaded ones plus every insert handed out). */
  public long records() {
    return records.get();
  }

  /** The number of a new record for an insert. */
  public long nextInsert() {
    return records.getAndIncrement();
  }
}
