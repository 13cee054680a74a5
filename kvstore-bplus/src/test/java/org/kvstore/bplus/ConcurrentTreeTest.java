package org.kvstore.bplus;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.testkit.Seeds;

/**
 * Writers on disjoint key ranges (splits, overflow values, removes), readers, scanners and
 * checkpoints all at once on a small buffer; afterwards the tree's invariants hold and every
 * writer's keys hold its last value.
 */
class ConcurrentTreeTest {
  @TempDir Path dir;

  /**
   * Forty rounds (a fraction of a second each): a checkpoint that held some gate stripes while
   * waiting for another deadlocked with a writer waiting for a page latch held by a reader that waited
   * for a dirty frame's eviction; it hung within the first rounds (seed -7046047870160242165).
   */
  @Test
  @Timeout(300)
  void writersReadersScansAndCheckpoints_keepInvariants() throws Exception {
    long seed = Seeds.seed("ConcurrentTreeTest");
    for (int round = 0; round < 40; round++) {
      Path d = dir.resolve("round" + round);
      java.nio.file.Files.createDirectories(d);
      once(d, seed + round);
    }
  }

  private static void once(Path dir, long seed) throws Exception {
    TableHarness h = new TableHarness(dir).with("page.size", "4KiB").with("buffer.size", "256KiB");
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      int writers = 4;
      List<ConcurrentHashMap<String, byte[]>> models = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(writers + 3);
      AtomicBoolean stop = new AtomicBoolean();
      List<Future<?>> writerFutures = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        ConcurrentHashMap<String, byte[]> model = new ConcurrentHashMap<>();
        models.add(model);
        int id = w;
        writerFutures.add(pool.submit(() -> {
          Random rnd = new Random(seed + id);
          for (int i = 0; i < 6000; i++) {
            String k = "w" + id + "-" + rnd.nextInt(1500);
            if (rnd.nextInt(5) == 0) {
              t.remove(k.getBytes(), 0);
              model.remove(k);
            } else {
              byte[] v = new byte[rnd.nextInt(40) == 0 ? 5000 : rnd.nextInt(300)];
              rnd.nextBytes(v);
              t.put(k.getBytes(), v, 0, 0);
              model.put(k, v);
            }
          }
          return null;
        }));
      }
      List<Future<?>> others = new ArrayList<>();
      others.add(pool.submit(() -> {
        Random rnd = new Random(seed);
        while (!stop.get()) {
          t.get(("w" + rnd.nextInt(writers) + "-" + rnd.nextInt(1500)).getBytes());
        }
        return null;
      }));
      others.add(pool.submit(() -> {
        while (!stop.get()) {
          byte[] previous = null;
          try (Cursor c = t.newCursor(null, null)) {
            while (c.next()) {
              byte[] k = c.key();
              assertThat(c.value()).isNotNull();
              if (previous != null) {
                assertThat(Arrays.compareUnsigned(previous, k)).isNegative();
              }
              previous = k;
            }
          }
        }
        return null;
      }));
      others.add(pool.submit(() -> {
        long lsn = 0;
        while (!stop.get()) {
          h.lsn.set(++lsn);
          t.flush();
          Thread.sleep(20);
        }
        return null;
      }));
      for (Future<?> f : writerFutures) {
        try {
          f.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          // A hang: show where every thread waits.
          for (var st : Thread.getAllStackTraces().entrySet()) {
            System.out.println("thread " + st.getKey().getName() + " " + st.getKey().getState());
            for (var frame : st.getValue()) {
              System.out.println("    at " + frame);
            }
          }
          throw new AssertionError("seed " + seed + ": the writers did not finish within 60 s", e);
        }
      }
      stop.set(true);
      for (Future<?> f : others) {
        f.get(30, TimeUnit.SECONDS);
      }
      pool.shutdown();
      t.tree().checkInvariants();
      long total = 0;
      for (ConcurrentHashMap<String, byte[]> model : models) {
        for (var e : model.entrySet()) {
          assertThat(t.get(e.getKey().getBytes())).as("seed %d key %s", seed, e.getKey())
              .isEqualTo(e.getValue());
        }
        total += model.size();
      }
      assertThat(t.tree().entryCount()).isEqualTo(total);
    }
  }
}
