package org.kvstore.bench;

import java.nio.file.Path;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * RocksDB JNI with its WAL on and unsynced (its default), a block cache and write buffer of the run's
 * sizes, and bloom filters of 10 bits per key (its usual setting, like our LSM's 1% default).
 *
 * <p>Thread safety: thread-safe, as {@link RocksDB}.
 */
final class RocksDbAdapter implements StoreAdapter {
  static {
    RocksDB.loadLibrary();
  }

  private final Options options;
  private final LRUCache cache;
  private final RocksDB db;
  private final WriteOptions writeOptions = new WriteOptions().setSync(false).setDisableWAL(false);
  private final ReadOptions readOptions = new ReadOptions();

  private RocksDbAdapter(Options options, LRUCache cache, RocksDB db) {
    this.options = options;
    this.cache = cache;
    this.db = db;
  }

  static RocksDbAdapter open(Path dir, BenchSettings s) {
    LRUCache cache = new LRUCache(s.cacheBytes());
    BlockBasedTableConfig table =
        new BlockBasedTableConfig()
            .setBlockCache(cache)
            .setFilterPolicy(new org.rocksdb.BloomFilter(10, false));
    Options options =
        new Options()
            .setCreateIfMissing(true)
            .setWriteBufferSize(s.memtableBytes())
            .setTableFormatConfig(table);
    try {
      return new RocksDbAdapter(options, cache, RocksDB.open(options, dir.toString()));
    } catch (RocksDBException e) {
      throw new IllegalStateException("cannot open RocksDB in " + dir, e);
    }
  }

  @Override
  public void put(byte[] key, byte[] value) {
    try {
      db.put(writeOptions, key, value);
    } catch (RocksDBException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public byte[] get(byte[] key) {
    try {
      return db.get(readOptions, key);
    } catch (RocksDBException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public int scan(byte[] from, int count) {
    int n = 0;
    try (RocksIterator it = db.newIterator(readOptions)) {
      for (it.seek(from); it.isValid() && n < count; it.next()) {
        it.value(); // copied out of RocksDB, as the other stores' scans return each value
        n++;
      }
    }
    return n;
  }

  @Override
  public void flush() {
    try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
      db.flush(f);
    } catch (RocksDBException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    db.close();
    options.close();
    cache.close();
    writeOptions.close();
    readOptions.close();
  }
}
