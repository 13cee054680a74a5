package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineStats;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.TableProperties;

/** Statistics that describe the data survive a reopen; counters since open start again at 0. */
class LsmStatsTest {
  @TempDir Path dir;

  private static EngineTable open(Path dir, AtomicLong applied) throws Exception {
    Properties p = new Properties();
    p.put("memtable.size", "64KiB");
    p.put("block.size", "1KiB");
    p.put("level0.compaction.trigger", "100"); // no compaction: the layout is stable once flushed
    p.put("level0.stop.writes.trigger", "200");
    LsmEngine engine = new LsmEngine();
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), p);
    return engine.open(new EngineContext(dir, LocalFileSystem.INSTANCE, tp, "stats.t", applied::get));
  }

  @Test
  void dataStatistics_surviveReopen_countersRestart() throws Exception {
    AtomicLong applied = new AtomicLong();
    EngineStats before;
    try (EngineTable t = open(dir, applied)) {
      for (int i = 1; i <= 3000; i++) {
        t.put(String.format("key%06d", i).getBytes(StandardCharsets.UTF_8), new byte[100 + i % 50], 0, i);
        applied.set(i);
      }
      t.flush();
      before = t.stats();
    }
    assertThat(before.details().get("flushes")).isGreaterThan(1L);
    assertThat(before.entryEstimate()).isEqualTo(3000);
    try (EngineTable t = open(dir, applied)) {
      EngineStats after = t.stats();
      assertThat(after.entryEstimate()).isEqualTo(before.entryEstimate());
      assertThat(after.bytesOnDisk()).isPositive().isLessThanOrEqualTo(before.bytesOnDisk());
      for (String k : before.details().keySet()) {
        if (k.startsWith("level.") || k.equals("space.amplification.x100") || k.equals("persisted.lsn")
            || k.equals("last.seq")) {
          assertThat(after.details().get(k)).as(k).isEqualTo(before.details().get(k));
        }
      }
      assertThat(after.details().get("level.0.files")).isGreaterThan(1L);
      assertThat(after.details().get("flushes")).isZero();
      assertThat(after.details().get("bytes.user.written")).isZero();
    }
  }
}
