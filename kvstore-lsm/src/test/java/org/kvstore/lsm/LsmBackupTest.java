package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.testkit.Seeds;

/**
 * Online backup of an LSM table while 4 writers, flushes and compactions run: the copy opens as a
 * store holding every write acknowledged before the backup started (with that value or a later one
 * of the same writer), no value that was never written, and no write made after the backup ended.
 */
class LsmBackupTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Values carry their version and padding, so flushes and compactions run often. */
  private static byte[] value(String key, int version, int pad) {
    return b(key + "=" + version + "#" + "x".repeat(pad));
  }

  private static int versionOf(String key, byte[] value) {
    String s = new String(value, StandardCharsets.UTF_8);
    assertThat(s).as("value of %s", key).startsWith(key + "=");
    return Integer.parseInt(s.substring(key.length() + 1, s.indexOf('#')));
  }

  @Test
  void backupDuringConcurrentLoad_opensWithEveryAcknowledgedWrite() throws Exception {
    long seed = Seeds.seed("LsmBackupTest");
    Path live = dir.resolve("live");
    Path target = dir.resolve("backup");
    Map<String, Integer> acked = new ConcurrentHashMap<>(); // key -> last acked version, negative: removed
    Map<String, Integer> removeIssued = new ConcurrentHashMap<>(); // key -> version of its last remove call
    Map<String, Integer> before;
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (KVStore store = KVStore.open(live, StoreOptions.defaults())) {
      store.createDB("db");
      store.createTable("db", "t", LsmEngine.NAME, LsmPowerLossTest.smallSizes());
      Table t = store.table("db", "t");
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int id = w;
        Thread th = new Thread(() -> {
          Random r = new Random(seed + id);
          int[] versions = new int[300];
          try {
            while (!stop.get()) {
              int j = r.nextInt(versions.length);
              String key = "w" + id + "-" + j;
              int v = versions[j] + 1;
              if (r.nextInt(10) == 0) {
                String key2 = "w" + id + "-b" + j;
                t.write(new WriteBatch().put(b(key), value(key, v, r.nextInt(300)))
                    .put(b(key2), value(key2, v, 10)));
                acked.put(key2, v);
                acked.put(key, v);
              } else if (r.nextInt(20) == 0) {
                removeIssued.put(key, v);
                t.remove(b(key));
                acked.put(key, -v);
              } else {
                t.put(b(key), value(key, v, r.nextInt(300)));
                acked.put(key, v);
              }
              versions[j] = v;
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          }
        }, "backup-writer-" + w);
        th.start();
        writers.add(th);
      }
      Thread.sleep(800);
      before = new HashMap<>(acked);
      store.backup(target);
      Thread.sleep(300);
      stop.set(true);
      for (Thread th : writers) {
        th.join();
      }
      assertThat(failure.get()).isNull();
      Map<String, Long> stats = t.info().engineStats();
      assertThat(stats.get("flushes")).as("flushes ran during the load").isGreaterThan(2L);
      assertThat(stats.get("compactions")).as("compactions ran during the load").isGreaterThan(0L);
    }
    try (KVStore copy = KVStore.open(target, StoreOptions.defaults())) {
      Table t = copy.table("db", "t");
      Map<String, Integer> found = new HashMap<>();
      try (Cursor c = t.scan(null, null, 0)) {
        while (c.next()) {
          String key = new String(c.key(), StandardCharsets.UTF_8);
          found.put(key, versionOf(key, c.value()));
        }
      }
      for (Map.Entry<String, Integer> e : before.entrySet()) {
        String key = e.getKey();
        int v = e.getValue();
        if (v > 0 && !found.containsKey(key)) {
          // Only a remove issued after the acknowledged put (during the backup) may hide it.
          assertThat(removeIssued.getOrDefault(key, 0)).as("acknowledged put %s v%d is missing", key, v)
              .isGreaterThan(v);
        } else if (v > 0) {
          assertThat(found.get(key)).as("acknowledged put %s v%d", key, v).isGreaterThanOrEqualTo(v);
        } else if (found.containsKey(key)) {
          assertThat(found.get(key)).as("%s acknowledged removed at v%d", key, -v).isGreaterThan(-v);
        }
      }
      for (Map.Entry<String, Integer> e : found.entrySet()) {
        int last = Math.abs(acked.getOrDefault(e.getKey(), 0));
        assertThat(e.getValue()).as("%s holds a version never written", e.getKey()).isLessThanOrEqualTo(last + 1);
        assertThat(t.get(b(e.getKey()))).as("get agrees with scan for %s", e.getKey()).isNotNull();
      }
      assertThat(found).as("writes after the backup are not in it").hasSizeLessThanOrEqualTo(acked.size());
    }
  }
}
