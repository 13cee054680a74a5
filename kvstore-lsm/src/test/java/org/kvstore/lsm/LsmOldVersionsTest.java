package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.Mutation;
import org.kvstore.spi.TableProperties;

/**
 * The memtable drops versions no open cursor can see: an overwritten key costs one version when no
 * cursor is open, and an open cursor keeps reading its snapshot while the keys it covers are
 * overwritten again and again.
 */
class LsmOldVersionsTest {
  @TempDir Path dir;

  private static EngineTable open(Path dir, String memtableSize) throws Exception {
    Properties p = new Properties();
    p.put("memtable.size", memtableSize);
    LsmEngine engine = new LsmEngine();
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), p);
    AtomicLong applied = new AtomicLong();
    return engine.open(new EngineContext(dir, LocalFileSystem.INSTANCE, tp, "versions.t", applied::get));
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static List<String> read(Cursor c) {
    List<String> out = new ArrayList<>();
    while (c.next()) {
      out.add(s(c.key()) + "=" + s(c.value()));
    }
    return out;
  }

  @Test
  void overwrites_keepOneVersion_whileOpenCursorsKeepTheirSnapshot() throws Exception {
    try (EngineTable t = open(dir, "16MiB")) {
      int keys = 100;
      List<String> first = new ArrayList<>();
      for (int k = 0; k < keys; k++) {
        t.put(b(String.format("k%03d", k)), b("round0"), 0, 1);
        first.add(String.format("k%03d", k) + "=round0");
      }
      Cursor c0 = t.newCursor(null, null);
      List<String> mid = new ArrayList<>();
      Cursor c1 = null;
      for (int round = 1; round <= 50; round++) {
        for (int k = 0; k < keys; k++) {
          t.put(b(String.format("k%03d", k)), b("round" + round), 0, 1);
        }
        if (round == 25) {
          c1 = t.newCursor(b("k050"), null);
          for (int k = 50; k < keys; k++) {
            mid.add(String.format("k%03d", k) + "=round25");
          }
        }
      }
      // The memtable's versions (no SSTable yet): its entry count is the table's estimate.
      long withCursors = t.stats().entryEstimate();
      assertThat(read(c0)).containsExactlyElementsOf(first);
      assertThat(read(c1)).containsExactlyElementsOf(mid);
      c0.close();
      c1.close();
      for (int k = 0; k < keys; k++) {
        t.put(b(String.format("k%03d", k)), b("last"), 0, 1);
      }
      assertThat(t.stats().entryEstimate()).as("one version per key").isEqualTo(keys);
      assertThat(withCursors).isGreaterThan(keys * 2L); // versions kept for both snapshots
      try (Cursor c = t.newCursor(null, null)) {
        assertThat(read(c)).hasSize(keys).allMatch(e -> e.endsWith("=last"));
      }
    }
  }

  /**
   * Writers set every key of the table to one value in one batch, again and again, while readers
   * open cursors: every cursor must see all keys with one value (its snapshot), however many
   * versions the writers made meanwhile.
   */
  @Test
  void racingBatchesAndCursors_everyCursorSeesOneBatch() throws Exception {
    try (EngineTable t = open(dir, "256KiB")) { // small: memtable switches and flushes happen too
      int keys = 64;
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong round = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<?>> fs = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        fs.add(pool.submit(() -> {
          while (!stop.get()) {
            String v = "r" + round.incrementAndGet();
            List<Mutation> batch = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
              batch.add(Mutation.put(b(String.format("k%03d", k)), b(v)));
            }
            t.apply(batch, 1);
          }
          return null;
        }));
      }
      for (int r = 0; r < 2; r++) {
        fs.add(pool.submit(() -> {
          for (int i = 0; i < 300; i++) {
            try (Cursor c = t.newCursor(null, null)) {
              List<String> seen = read(c);
              if (seen.isEmpty()) {
                continue;
              }
              assertThat(seen).hasSize(keys);
              String value = seen.get(0).substring(seen.get(0).indexOf('='));
              assertThat(seen).as("one batch per cursor").allMatch(e -> e.endsWith(value));
            }
          }
          return null;
        }));
      }
      try {
        fs.get(2).get(120, TimeUnit.SECONDS);
        fs.get(3).get(120, TimeUnit.SECONDS);
      } finally {
        stop.set(true);
        fs.get(0).get(60, TimeUnit.SECONDS);
        fs.get(1).get(60, TimeUnit.SECONDS);
        pool.shutdown();
      }
      assertThat(round.get()).isGreaterThan(10);
    }
  }
}
