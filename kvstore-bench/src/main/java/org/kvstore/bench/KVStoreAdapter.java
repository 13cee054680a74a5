package org.kvstore.bench;

import java.nio.file.Path;
import java.util.Properties;
import org.kvstore.Cursor;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;

/**
 * A KVStore table of one engine, written with durability {@code none} (the log is written, never
 * fsynced: the same as RocksDB's default WAL) and the cache and memtable sizes of the run.
 *
 * <p>Thread safety: thread-safe, as {@link Table}.
 */
final class KVStoreAdapter implements StoreAdapter {
  private final KVStore store;
  private final Table table;

  private KVStoreAdapter(KVStore store, Table table) {
    this.store = store;
    this.table = table;
  }

  static KVStoreAdapter open(Path dir, String engine, BenchSettings s) {
    KVStore store =
        KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE).build());
    if (!store.listDBs().contains("bench")) {
      store.createDB("bench");
    }
    if (!store.listTables("bench").contains("t")) {
      Properties p = new Properties();
      if (engine.equals("lsm")) {
        p.put("memtable.size", Long.toString(s.memtableBytes()));
        p.put("block.cache.size", Long.toString(s.cacheBytes()));
      } else if (engine.equals("bplus")) {
        p.put("buffer.size", Long.toString(s.cacheBytes()));
      }
      store.createTable("bench", "t", engine, p);
    }
    return new KVStoreAdapter(store, store.table("bench", "t"));
  }

  @Override
  public void put(byte[] key, byte[] value) {
    table.put(key, value);
  }

  @Override
  public byte[] get(byte[] key) {
    return table.get(key);
  }

  @Override
  public int scan(byte[] from, int count) {
    int n = 0;
    try (Cursor c = table.scan(from, null, count)) {
      while (c.next()) {
        n += c.value().length > 0 ? 1 : 1;
      }
    }
    return n;
  }

  @Override
  public void flush() {
    table.flush();
  }

  @Override
  public void close() {
    store.close();
  }
}
