package org.kvstore.bench.load.driver;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.kvstore.Cursor;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;

/**
 * KVStore in this JVM: one store with one table {@code bench/t} of the given engine ({@code lsm},
 * {@code bplus} or {@code memory}) and durability; the LSM memtable and block cache, and the B+tree
 * page buffer, take the sizes of {@link StoreSizes}. Sessions share the table.
 *
 * <p>Thread safety: thread-safe, as {@link Table}.
 */
public final class EmbeddedDriver implements Driver {
  public static final String DB = "bench";
  public static final String TABLE = "t";

  private final String engine;
  private final KVStore store;
  private final Table table;

  private EmbeddedDriver(String engine, KVStore store, Table table) {
    this.engine = engine;
    this.store = store;
    this.table = table;
  }

  /** Opens (or reopens) the store in {@code dir}, creating the table when it is missing. */
  public static EmbeddedDriver open(Path dir, String engine, Durability durability, StoreSizes sizes) {
    String e = engine.toLowerCase(Locale.ROOT);
    KVStore store = KVStore.open(dir, StoreOptions.builder().durability(durability).build());
    try {
      if (!store.listDBs().contains(DB)) {
        store.createDB(DB);
      }
      if (!store.listTables(DB).contains(TABLE)) {
        store.createTable(DB, TABLE, e, properties(e, sizes));
      }
      return new EmbeddedDriver(e, store, store.table(DB, TABLE));
    } catch (RuntimeException ex) {
      store.close();
      throw ex;
    }
  }

  private static Properties properties(String engine, StoreSizes sizes) {
    Properties p = new Properties();
    if (engine.equals("lsm")) {
      p.put("memtable.size", Long.toString(sizes.memtableBytes()));
      p.put("block.cache.size", Long.toString(sizes.cacheBytes()));
    } else if (engine.equals("bplus")) {
      p.put("buffer.size", Long.toString(sizes.cacheBytes()));
    }
    return p;
  }

  @Override
  public String name() {
    return engine;
  }

  public KVStore store() {
    return store;
  }

  @Override
  public Session openSession() {
    return new Session() {
      @Override
      public byte[] get(byte[] key) {
        return table.get(key);
      }

      @Override
      public void put(byte[] key, byte[] value) {
        table.put(key, value);
      }

      @Override
      public int scan(byte[] from, int count) {
        int n = 0;
        try (Cursor c = table.scan(from, null, count)) {
          while (c.next()) {
            n++;
          }
        }
        return n;
      }

      @Override
      public void writeAtomically(List<byte[]> keys, List<byte[]> values) {
        WriteBatch b = new WriteBatch();
        for (int i = 0; i < keys.size(); i++) {
          b.put(keys.get(i), values.get(i));
        }
        table.write(b);
      }

      @Override
      public void close() {
        // the table is shared and closed with the store
      }
    };
  }

  @Override
  public void close() {
    store.close();
  }
}
