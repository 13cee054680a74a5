package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.TableProperties;

/**
 * {@code block.cache.fill.on.flush} and {@code block.cache.fill.on.compaction}: the first reads of
 * a just-flushed file, and of a compaction's output when its inputs were cached, find their blocks
 * cached.
 */
class LsmBlockCacheFillTest {
  @TempDir Path dir;

  private static EngineTable open(Path dir, boolean fill) throws Exception {
    Properties p = new Properties();
    p.put("block.cache.fill.on.flush", Boolean.toString(fill));
    return open(dir, p);
  }

  private static EngineTable open(Path dir, Properties p) throws Exception {
    LsmEngine engine = new LsmEngine();
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), p);
    AtomicLong applied = new AtomicLong();
    return engine.open(new EngineContext(dir, LocalFileSystem.INSTANCE, tp, "fill.t", applied::get));
  }

  /** Reads every key once after a flush; returns the engine statistics after the reads. */
  private static Map<String, Long> flushThenReadAll(EngineTable t) throws Exception {
    int keys = 2_000;
    for (int i = 0; i < keys; i++) {
      t.put(String.format("key%05d", i).getBytes(StandardCharsets.UTF_8), new byte[200], 0, i + 1);
    }
    t.flush();
    for (int i = 0; i < keys; i++) {
      assertThat(t.get(String.format("key%05d", i).getBytes(StandardCharsets.UTF_8))).hasSize(200);
    }
    return t.stats().details();
  }

  @Test
  void fillOnFlush_firstReadsHitTheCache() throws Exception {
    try (EngineTable t = open(dir.resolve("on"), true)) {
      Map<String, Long> d = flushThenReadAll(t);
      assertThat(d.get("block.cache.hit.rate.permille")).isEqualTo(1000);
      assertThat(d.get("block.cache.bytes")).isPositive();
    }
    try (EngineTable t = open(dir.resolve("off"), false)) {
      Map<String, Long> d = flushThenReadAll(t);
      // About 20 entries a block: the first read of each block misses.
      assertThat(d.get("block.cache.hit.rate.permille")).isLessThan(1000);
    }
  }

  /** Two overlapping flushes merged by one compaction; then every key is read once. */
  private static Map<String, Long> compactThenReadAll(EngineTable t) throws Exception {
    int keys = 2_000;
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < keys; i++) {
        t.put(String.format("key%05d", i).getBytes(StandardCharsets.UTF_8), new byte[200], 0,
            round * keys + i + 1);
      }
      t.flush();
    }
    StatsWait.untilLevel0Compacted(t);
    for (int i = 0; i < keys; i++) {
      assertThat(t.get(String.format("key%05d", i).getBytes(StandardCharsets.UTF_8))).hasSize(200);
    }
    return t.stats().details();
  }

  private static Properties compactionProps(boolean fillOnCompaction) {
    Properties p = new Properties();
    p.put("level0.compaction.trigger", "2");
    p.put("block.cache.fill.on.flush", "true");
    p.put("block.cache.fill.on.compaction", Boolean.toString(fillOnCompaction));
    return p;
  }

  @Test
  void fillOnCompaction_outputOfCachedInputsIsCached() throws Exception {
    try (EngineTable t = open(dir.resolve("on"), compactionProps(true))) {
      Map<String, Long> d = compactThenReadAll(t);
      assertThat(d.get("block.cache.hit.rate.permille")).as("%s", d).isEqualTo(1000);
      assertThat(d.get("level.1.files")).isPositive();
    }
    try (EngineTable t = open(dir.resolve("off"), compactionProps(false))) {
      Map<String, Long> d = compactThenReadAll(t);
      assertThat(d.get("block.cache.hit.rate.permille")).as("%s", d).isLessThan(1000);
    }
  }

  @Test
  void fillOnCompaction_putsNothingForColdInputs() throws Exception {
    Properties p = compactionProps(true);
    p.put("block.cache.fill.on.flush", "false");
    try (EngineTable t = open(dir.resolve("cold"), p)) {
      Map<String, Long> d = compactThenReadAll(t);
      // Nothing was cached before the reads, so each block's first read misses.
      assertThat(d.get("block.cache.hit.rate.permille")).as("%s", d).isLessThan(1000);
    }
  }
}
