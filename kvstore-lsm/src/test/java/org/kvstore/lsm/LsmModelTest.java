package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.testkit.Seeds;

/**
 * Randomized differential test of the LSM engine through the public API against a {@link TreeMap}
 * model, with tiny memtables, files and levels so flushes and compactions run all the time, and
 * with reopens in between (leveldb's DBTest.Randomized).
 */
class LsmModelTest {
  @TempDir Path dir;

  static Properties smallProperties() {
    Properties p = new Properties();
    p.put("memtable.size", "16KiB");
    p.put("block.size", "512");
    p.put("target.file.size", "16KiB");
    p.put("level1.max.size", "64KiB");
    p.put("level.size.ratio", "4");
    p.put("level0.compaction.trigger", "2");
    p.put("block.cache.size", "32KiB");
    p.put("max.open.files", "8");
    return p;
  }

  static int scale(int n) {
    String s = System.getProperty("kvstore.test.scale", "default");
    return s.equals("soak") ? n * 20 : n;
  }

  @Test
  void randomOperations_matchTreeMapModel_acrossReopens() {
    long seed = Seeds.seed("LsmModelTest.randomOperations_matchTreeMapModel_acrossReopens");
    Random rnd = new Random(seed);
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    int ops = scale(30_000);
    KVStore store = KVStore.open(dir, StoreOptions.defaults());
    store.createDB("d");
    store.createTable("d", "t", "lsm", smallProperties());
    Table t = store.table("d", "t");
    for (int i = 0; i < ops; i++) {
      int op = rnd.nextInt(100);
      byte[] k = key(rnd.nextInt(2000));
      if (op < 55) {
        byte[] v = value(rnd, i);
        t.put(k, v);
        model.put(k, v);
      } else if (op < 70) {
        assertThat(t.remove(k)).as("remove %s", new String(k, StandardCharsets.UTF_8))
            .isEqualTo(model.remove(k) != null);
      } else if (op < 80) {
        WriteBatch b = new WriteBatch();
        for (int j = 0; j < 5; j++) {
          byte[] bk = key(rnd.nextInt(2000));
          if (rnd.nextBoolean()) {
            byte[] v = value(rnd, i);
            b.put(bk, v);
            model.put(bk, v);
          } else {
            b.remove(bk);
            model.remove(bk);
          }
        }
        t.write(b);
      } else if (op < 95) {
        assertThat(t.get(k)).isEqualTo(model.get(k));
      } else if (op < 99) {
        byte[] from = key(rnd.nextInt(2000));
        byte[] to = rnd.nextInt(4) == 0 ? null : key(rnd.nextInt(2000));
        checkScan(t, model, from, to);
      } else if (rnd.nextInt(10) == 0) {
        store.close();
        store = KVStore.open(dir, StoreOptions.defaults());
        t = store.table("d", "t");
        checkScan(t, model, null, null);
      }
    }
    checkScan(t, model, null, null);
    Map<String, Long> stats = t.info().engineStats();
    System.err.println("LsmModelTest stats " + stats);
    assertThat(stats.get("level.1.files") + stats.get("level.2.files"))
        .as("compactions moved data below level 0").isPositive();
    store.close();
    store = KVStore.open(dir, StoreOptions.defaults());
    checkScan(store.table("d", "t"), model, null, null);
    store.close();
  }

  static void checkScan(Table t, TreeMap<byte[], byte[]> model, byte[] from, byte[] to) {
    Map<byte[], byte[]> expected;
    if (to != null && from != null && Arrays.compareUnsigned(from, to) >= 0) {
      expected = Map.of();
    } else if (from == null && to == null) {
      expected = model;
    } else if (to == null) {
      expected = model.tailMap(from, true);
    } else if (from == null) {
      expected = model.headMap(to, false);
    } else {
      expected = model.subMap(from, true, to, false);
    }
    List<String> got = new ArrayList<>();
    try (Cursor c = t.scan(from, to, 0)) {
      while (c.next()) {
        got.add(new String(c.key(), StandardCharsets.UTF_8) + "=" + new String(c.value(), StandardCharsets.UTF_8));
      }
    }
    List<String> want = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
      want.add(new String(e.getKey(), StandardCharsets.UTF_8) + "=" + new String(e.getValue(), StandardCharsets.UTF_8));
    }
    assertThat(got).containsExactlyElementsOf(want);
  }

  static byte[] key(int i) {
    return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] value(Random rnd, int i) {
    StringBuilder sb = new StringBuilder("v").append(i).append('-');
    int n = rnd.nextInt(60);
    for (int j = 0; j < n; j++) {
      sb.append((char) ('a' + rnd.nextInt(26)));
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }
}
