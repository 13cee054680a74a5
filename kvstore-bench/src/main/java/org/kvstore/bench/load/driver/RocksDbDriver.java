package org.kvstore.bench.load.driver;

import java.nio.file.Path;
import java.util.List;
import org.kvstore.Durability;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksDB JNI with a block cache and write buffer of {@link StoreSizes}, bloom filters of 10 bits
 * per key, and its WAL written for every durability, fsynced per write for {@code sync} only
 * (RocksDB has no periodic mode; {@code periodic} runs as {@code none}).
 *
 * <p>Thread safety: thread-safe, as {@link RocksDB}.
 */
public final class RocksDbDriver implements Driver {
  static {
    RocksDB.loadLibrary();
  }

  private final Options options;
  private final LRUCache cache;
  private final RocksDB db;
  private final WriteOptions writeOptions;
  private final ReadOptions readOptions = new ReadOptions();

  private RocksDbDriver(Options options, LRUCache cache, RocksDB db, WriteOptions writeOptions) {
    this.options = options;
    this.cache = cache;
    this.db = db;
    this.writeOptions = writeOptions;
  }

  public static RocksDbDriver open(Path dir, Durability durability, StoreSizes sizes) {
    LRUCache cache = new LRUCache(Math.max(1, sizes.cacheBytes()));
    BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache)
        .setFilterPolicy(new BloomFilter(10, false));
    Options options = new Options().setCreateIfMissing(true).setWriteBufferSize(sizes.memtableBytes())
        .setTableFormatConfig(table);
    WriteOptions w = new WriteOptions().setSync(durability == Durability.SYNC).setDisableWAL(false);
    try {
      return new RocksDbDriver(options, cache, RocksDB.open(options, dir.toString()), w);
    } catch (RocksDBException e) {
      options.close();
      cache.close();
      w.close();
      throw new DriverException("cannot open RocksDB in " + dir, e);
    }
  }

  @Override
  public String name() {
    return "rocksdb";
  }

  @Override
  public Session openSession() {
    return new Session() {
      @Override
      public byte[] get(byte[] key) {
        try {
          return db.get(readOptions, key);
        } catch (RocksDBException e) {
          throw new DriverException("rocksdb", "get", key, e);
        }
      }

      @Override
      public void put(byte[] key, byte[] value) {
        try {
          db.put(writeOptions, key, value);
        } catch (RocksDBException e) {
          throw new DriverException("rocksdb", "put", key, e);
        }
      }

      @Override
      public int scan(byte[] from, int count) {
        int n = 0;
        try (RocksIterator it = db.newIterator(readOptions)) {
          for (it.seek(from); it.isValid() && n < count; it.next()) {
            it.value();
            n++;
          }
        }
        return n;
      }

      @Override
      public void writeAtomically(List<byte[]> keys, List<byte[]> values) {
        try (WriteBatch b = new WriteBatch()) {
          for (int i = 0; i < keys.size(); i++) {
            b.put(keys.get(i), values.get(i));
          }
          db.write(writeOptions, b);
        } catch (RocksDBException e) {
          throw new DriverException("rocksdb", "write batch", keys.get(0), e);
        }
      }

      @Override
      public void close() {
        // the database is shared and closed with the driver
      }
    };
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
