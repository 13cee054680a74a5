package org.kvstore.bench.load.driver;

/**
 * Memory sizes every embedded store of one run gets, so the comparison is like for like.
 *
 * @param cacheBytes the B+tree page buffer, the LSM and RocksDB block caches
 * @param memtableBytes the LSM and RocksDB write buffer
 *
 * <p>Thread safety: immutable.
 */
public record StoreSizes(long cacheBytes, long memtableBytes) {
  /** KeksDB's settings: a 256 MB page buffer and a 256 MB memtable. */
  public static final StoreSizes KEKSDB = new StoreSizes(256L << 20, 256L << 20);
  /** Small enough for tests and tiny runs. */
  public static final StoreSizes SMALL = new StoreSizes(16L << 20, 8L << 20);

  public StoreSizes {
    if (cacheBytes < 0 || memtableBytes < 1) {
      throw new IllegalArgumentException("cacheBytes must be >= 0 and memtableBytes > 0");
    }
  }
}
