package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.lsm.sstable.SharedBlockCache;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.TableProperties;
import org.kvstore.testkit.Seeds;

/**
 * The block cache's direct memory: bounded by the shared cache's size through many flushes and
 * compactions that fill it, read back correctly, and let go when the last table using it closes.
 */
class LsmOffHeapCacheTest {
  private static final long CACHE_BYTES = 8L << 20;

  @TempDir Path dir;

  private static EngineTable open(LsmEngine engine, Path dir, String name) throws Exception {
    Properties p = new Properties();
    p.put("row.cache", "true");
    p.put("block.cache.fill.on.flush", "true");
    p.put("block.cache.fill.on.compaction", "true");
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), p);
    AtomicLong applied = new AtomicLong();
    return engine.open(new EngineContext(dir.resolve(name), LocalFileSystem.INSTANCE, tp, name, applied::get,
        CACHE_BYTES, 64L << 20));
  }

  private static long directBytes() {
    long n = 0;
    for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (b.getName().equals("direct")) {
        n += b.getMemoryUsed();
      }
    }
    return n;
  }

  private static byte[] key(int i) {
    return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
  }

  /** Through the store: a dropped table's cache memory goes when it was the last lsm table. */
  @Test
  void droppingTheLastLsmTable_letsTheSharedCacheMemoryGo() throws Exception {
    try (KVStore store = KVStore.open(dir.resolve("store"), StoreOptions.builder().blockCacheBytes(CACHE_BYTES).build())) {
      store.createDB("db");
      store.createTable("db", "a", LsmEngine.NAME, new Properties());
      store.createTable("db", "b", LsmEngine.NAME, new Properties());
      for (String name : new String[] {"a", "b"}) {
        Table t = store.table("db", name);
        for (int i = 0; i < 2000; i++) {
          t.put(key(i), new byte[500]);
        }
      }
      store.checkpoint(); // flushes both; the flushes fill the shared cache
      assertThat(cacheMemory(store, "a")).isPositive().isLessThanOrEqualTo(CACHE_BYTES);
      store.dropTable("db", "a");
      assertThat(cacheMemory(store, "b")).as("b still uses the cache").isPositive();
      assertThat(store.table("db", "b").get(key(7))).hasSize(500);
      store.dropTable("db", "b");
      store.createTable("db", "c", LsmEngine.NAME, new Properties());
      assertThat(cacheMemory(store, "c")).as("the cache started over after its last table went").isZero();
    }
  }

  private static long cacheMemory(KVStore store, String table) {
    return store.table("db", table).info().engineStats().get("block.cache.memory.bytes");
  }

  @Test
  void hundredFlushesThroughTheCache_memoryStaysWithinItsSize_andGoesWithTheLastTable() throws Exception {
    long seed = Seeds.seed("LsmOffHeapCacheTest.hundredFlushes");
    Random rnd = new Random(seed);
    LsmEngine engine = new LsmEngine();
    EngineTable a = open(engine, dir, "a");
    EngineTable b = open(engine, dir, "b");
    long directAtThirty = 0;
    Map<Integer, byte[]> model = new HashMap<>();
    long lsn = 0;
    int next = 0;
    for (int flush = 0; flush < 100; flush++) {
      EngineTable t = flush % 2 == 0 ? a : b;
      // About 400 KiB per flush, 40 MiB in all: five times through the cache.
      for (int i = 0; i < 800; i++, next++) {
        byte[] v = new byte[500];
        rnd.nextBytes(v);
        t.put(key(next), v, 0, ++lsn);
        model.put(next, v);
      }
      t.flush();
      SharedBlockCache cache = engine.sharedBlockCache();
      assertThat(cache.offHeapBytes()).as("seed %d, flush %d", seed, flush).isLessThanOrEqualTo(CACHE_BYTES);
      // The JVM's direct memory (the cache's regions, and the buffers file I/O keeps per thread)
      // grows no more once the cache is full.
      if (flush == 30) {
        directAtThirty = directBytes();
      } else if (flush > 30) {
        assertThat(directBytes()).as("seed %d, flush %d: direct memory", seed, flush)
            .isLessThanOrEqualTo(directAtThirty + (4L << 20));
      }
      for (int r = 0; r < 200; r++) {
        int k = rnd.nextInt(next);
        EngineTable owner = (k / 800) % 2 == 0 ? a : b;
        assertThat(owner.get(key(k))).as("seed %d, key %d", seed, k).isEqualTo(model.get(k));
      }
    }
    SharedBlockCache cache = engine.sharedBlockCache();
    assertThat(cache.offHeapBytes()).as("the flushes filled the cache").isEqualTo(CACHE_BYTES);
    a.close();
    assertThat(cache.offHeapBytes()).as("table b still uses the cache").isEqualTo(CACHE_BYTES);
    for (int k = 800; k < 1600; k++) {
      assertThat(b.get(key(k))).as("key %d", k).isEqualTo(model.get(k));
    }
    b.close();
    assertThat(cache.offHeapBytes()).isZero();
    assertThat(cache.usedBytes()).isZero();
    // Reopened, a table reads through a cache that starts over.
    EngineTable again = open(engine, dir, "a");
    try {
      for (int k = 0; k < 800; k++) {
        assertThat(again.get(key(k))).as("key %d", k).isEqualTo(model.get(k));
        assertThat(again.get(key(k))).as("key %d, from the cache", k).isEqualTo(model.get(k));
      }
      assertThat(cache.offHeapBytes()).isPositive().isLessThanOrEqualTo(CACHE_BYTES);
    } finally {
      again.close();
    }
  }
}
