package org.kvstore.bench;

import java.nio.file.Path;

/**
 * The stores a benchmark compares, each opening its adapter with the same settings: the same cache
 * budget in bytes, the same memtable size, and the write-ahead log on without fsync.
 */
public enum StoreType {
  LSM {
    @Override
    public StoreAdapter open(Path dir, BenchSettings s) {
      return KVStoreAdapter.open(dir, "lsm", s);
    }
  },
  BPLUS {
    @Override
    public StoreAdapter open(Path dir, BenchSettings s) {
      return KVStoreAdapter.open(dir, "bplus", s);
    }
  },
  ROCKSDB {
    @Override
    public StoreAdapter open(Path dir, BenchSettings s) {
      return RocksDbAdapter.open(dir, s);
    }
  };

  public abstract StoreAdapter open(Path dir, BenchSettings settings);
}
