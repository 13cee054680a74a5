package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.lsm.sstable.SharedBlockCache;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.TableProperties;

/**
 * The tables of one engine instance (one store) share one block cache of the context's size; a
 * table with a {@code block.cache.size} of its own does not; closing a table frees its blocks.
 */
class LsmSharedBlockCacheTest {
  private static final long SHARED = 1L << 20;
  @TempDir Path dir;

  private static LsmTable open(LsmEngine engine, Path dir, Properties p) throws Exception {
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), p);
    AtomicLong applied = new AtomicLong();
    return (LsmTable) engine.open(
        new EngineContext(dir, LocalFileSystem.INSTANCE, tp, dir.getFileName().toString(),
            applied::get, SHARED, 0));
  }

  /** Writes {@code keys} 200-byte values, flushes, and reads them all back. */
  private static void fillFlushAndRead(EngineTable t, int keys) throws Exception {
    for (int i = 0; i < keys; i++) {
      t.put(String.format("key%05d", i).getBytes(StandardCharsets.UTF_8), new byte[200], 0, i + 1);
    }
    t.flush();
    for (int i = 0; i < keys; i++) {
      assertThat(t.get(String.format("key%05d", i).getBytes(StandardCharsets.UTF_8))).hasSize(200);
    }
  }

  @Test
  void tablesOfOneEngineShareOneCache_ofTheStoresSize() throws Exception {
    LsmEngine engine = new LsmEngine();
    Properties own = new Properties();
    own.put("block.cache.size", "256KiB");
    try (LsmTable a = open(engine, dir.resolve("a"), new Properties());
        LsmTable b = open(engine, dir.resolve("b"), new Properties());
        LsmTable c = open(engine, dir.resolve("c"), own)) {
      SharedBlockCache shared = a.blockCache().shared();
      assertThat(b.blockCache().shared()).isSameAs(shared);
      assertThat(shared.capacityBytes()).isEqualTo(SHARED);
      assertThat(c.blockCache().shared()).isNotSameAs(shared);
      assertThat(c.blockCache().shared().capacityBytes()).isEqualTo(256L << 10);

      // Both tables' files are numbered alike; each reads its own values through the cache.
      fillFlushAndRead(a, 3_000);
      fillFlushAndRead(b, 3_000);
      long bytesA = a.stats().details().get("block.cache.bytes");
      long bytesB = b.stats().details().get("block.cache.bytes");
      assertThat(bytesA).isPositive();
      assertThat(bytesB).isPositive();
      assertThat(bytesA + bytesB).isEqualTo(shared.usedBytes());
      assertThat(shared.usedBytes()).isLessThanOrEqualTo(SHARED + 16 * 5000L);

      a.close();
      assertThat(shared.usedBytes()).as("a closed table's blocks are dropped").isEqualTo(bytesB);
    }
  }

  @Test
  void aSecondEngineInstance_hasItsOwnCache() throws Exception {
    try (LsmTable a = open(new LsmEngine(), dir.resolve("a"), new Properties());
        LsmTable b = open(new LsmEngine(), dir.resolve("b"), new Properties())) {
      assertThat(a.blockCache().shared()).isNotSameAs(b.blockCache().shared());
    }
  }
}
