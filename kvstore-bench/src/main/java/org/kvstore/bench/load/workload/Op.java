package org.kvstore.bench.load.workload;

import java.util.Locale;

/** One kind of request a workload sends. Thread safety: immutable. */
public enum Op {
  /** Read one key. */
  GET,
  /** Write one existing (or preloaded) key. */
  PUT,
  /** Write a key past the current end of the key space (YCSB's insert). */
  INSERT,
  /** Read a run of keys from one key on. */
  SCAN,
  /** Read one key, then write it (YCSB's read-modify-write), timed as one operation. */
  RMW;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Op parse(String text) {
    for (Op op : values()) {
      if (op.label().equals(text.trim().toLowerCase(Locale.ROOT))) {
        return op;
      }
    }
    throw new IllegalArgumentException("operation '" + text + "' is not one of get, put, insert, scan, rmw");
  }
}
