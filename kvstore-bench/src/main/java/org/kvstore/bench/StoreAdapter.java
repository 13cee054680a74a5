package org.kvstore.bench;

/**
 * What a benchmark does to a store, so that KVStore engines and RocksDB run the very same code.
 *
 * <p>Thread safety: implementations are thread-safe (benchmarks call them from many threads).
 */
public interface StoreAdapter extends AutoCloseable {

  void put(byte[] key, byte[] value);

  byte[] get(byte[] key);

  /** Reads up to {@code count} entries from {@code from} on; returns how many were read. */
  int scan(byte[] from, int count);

  /** Persists what is buffered (memtable, dirty pages), so later reads hit the on-disk structures. */
  void flush();

  @Override
  void close();
}
