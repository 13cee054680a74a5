package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.TableProperties;
import org.kvstore.testkit.Seeds;

/**
 * {@code row.cache}: point reads of flushed keys are served from cached rows, which stay right
 * through overwrites, deletes, flushes and compactions, and never share arrays with the caller.
 */
class LsmRowCacheTest {
  @TempDir Path dir;

  private static EngineTable open(Path dir, boolean rows) throws Exception {
    return open(dir, rows, true);
  }

  private static EngineTable open(Path dir, boolean rows, boolean fill) throws Exception {
    Properties p = new Properties();
    p.put("row.cache", Boolean.toString(rows));
    p.put("row.cache.fill.on.flush", Boolean.toString(fill));
    p.put("row.cache.fill.on.compaction", Boolean.toString(fill));
    p.put("block.cache.size", "4MiB");
    p.put("level0.compaction.trigger", "2");
    LsmEngine engine = new LsmEngine();
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), p);
    AtomicLong applied = new AtomicLong();
    return engine.open(new EngineContext(dir, LocalFileSystem.INSTANCE, tp, "rows.t", applied::get));
  }

  private static byte[] key(int i) {
    return String.format("key%05d", i).getBytes(StandardCharsets.UTF_8);
  }

  /** A random value of 1 to 100 bytes. */
  private static byte[] value(Random rnd) {
    byte[] v = new byte[1 + rnd.nextInt(100)];
    rnd.nextBytes(v);
    return v;
  }

  private static void readAll(EngineTable t, TreeMap<Integer, byte[]> model, int keys, long seed) throws Exception {
    for (int i = 0; i < keys; i++) {
      assertThat(t.get(key(i))).as("seed %d, key %d", seed, i).isEqualTo(model.get(i));
    }
  }

  /**
   * Keys read while in the memtable (values and deletes) are row hits on their first read after
   * the flush; keys only written are not cached by the flush.
   */
  @ParameterizedTest(name = "row.cache.fill.on.flush={0}")
  @ValueSource(booleans = {true, false})
  void keysReadInTheMemtable_areRowHitsRightAfterTheFlush(boolean fill) throws Exception {
    long seed = Seeds.seed("LsmRowCacheTest.keysReadInTheMemtable_areRowHitsRightAfterTheFlush");
    Random rnd = new Random(seed);
    int keys = 2_000;
    TreeMap<Integer, byte[]> model = new TreeMap<>();
    long lsn = 0;
    try (EngineTable t = open(dir, true, fill)) {
      for (int i = 0; i < keys; i++) {
        if (i % 4 == 2) {
          t.remove(key(i), ++lsn); // a tombstone (over nothing): read as absent, from the row too
          continue;
        }
        byte[] v = value(rnd);
        t.put(key(i), v, 0, ++lsn);
        model.put(i, v);
      }
      for (int i = 0; i < keys; i += 2) { // the even keys: half of them values, half tombstones
        assertThat(t.get(key(i))).as("seed %d, key %d", seed, i).isEqualTo(model.get(i));
      }
      long hits = t.stats().details().get("row.cache.hits");
      t.flush();
      readAll(t, model, keys, seed);
      Map<String, Long> d = t.stats().details();
      long expected = fill ? keys / 2 : 0;
      assertThat(d.get("row.cache.hits") - hits).as("seed %d: %s", seed, d).isEqualTo(expected);
      byte[] first = t.get(key(0));
      first[0] ^= 1; // the caller's copy: the cached row stays as it was
      readAll(t, model, keys, seed);
    }
  }

  /**
   * Rows cached for a compaction's input files are cached for its outputs: the hot keys stay row
   * hits across the rewrite, with the newest values; keys never read are not cached.
   */
  @ParameterizedTest(name = "row.cache.fill.on.compaction={0}")
  @ValueSource(booleans = {true, false})
  void rowsOfCompactedFiles_areCarriedToTheOutputs(boolean fill) throws Exception {
    long seed = Seeds.seed("LsmRowCacheTest.rowsOfCompactedFiles_areCarriedToTheOutputs");
    Random rnd = new Random(seed);
    int keys = 2_000;
    TreeMap<Integer, byte[]> model = new TreeMap<>();
    long lsn = 0;
    try (EngineTable t = open(dir, true, fill)) {
      for (int round = 0; round < 2; round++) { // two files (the compaction trigger): overlapping ranges
        for (int i = round; i < keys; i += 1 + round) {
          byte[] v = value(rnd);
          t.put(key(i), v, 0, ++lsn);
          model.put(i, v);
        }
        if (round == 0) {
          t.flush();
        }
      }
      for (int i = 0; i < keys; i += 3) { // a third of the keys are hot: read from the memtable or file
        assertThat(t.get(key(i))).as("seed %d, key %d", seed, i).isEqualTo(model.get(i));
      }
      for (int i = 0; i < keys; i += 3) { // and again: rows for the first file's keys are admitted now
        t.get(key(i));
      }
      t.flush();
      StatsWait.untilLevel0Compacted(t);
      long hits = t.stats().details().get("row.cache.hits");
      int hot = 0;
      for (int i = 0; i < keys; i += 3) {
        assertThat(t.get(key(i))).as("seed %d, key %d", seed, i).isEqualTo(model.get(i));
        hot++;
      }
      Map<String, Long> d = t.stats().details();
      assertThat(d.get("level.0.files")).as("%s", d).isZero();
      assertThat(d.get("row.cache.hits") - hits).as("seed %d: %s", seed, d).isEqualTo(fill ? hot : 0);
      readAll(t, model, keys, seed);
    }
  }

  @Test
  void flushedKeysReadAgain_comeFromRows_andStayRightThroughOverwritesDeletesAndCompaction() throws Exception {
    long seed = Seeds.seed("LsmRowCacheTest.flushedKeysReadAgain_comeFromRows_andStayRightThroughOverwritesDeletesAndCompaction");
    Random rnd = new Random(seed);
    int keys = 2_000;
    TreeMap<Integer, byte[]> model = new TreeMap<>();
    long lsn = 0;
    try (EngineTable t = open(dir, true)) {
      for (int i = 0; i < keys; i++) {
        byte[] v = value(rnd);
        t.put(key(i), v, 0, ++lsn);
        model.put(i, v);
      }
      t.flush();
      readAll(t, model, keys, seed); // the first reads fill the rows
      long before = t.stats().details().get("row.cache.hits");
      readAll(t, model, keys, seed);
      Map<String, Long> d = t.stats().details();
      assertThat(d.get("row.cache.hits") - before).as("seed %d: %s", seed, d).isEqualTo(keys);

      // Overwrite and delete a third each; the rows of the old file must not answer for them.
      for (int i = 0; i < keys; i++) {
        int r = rnd.nextInt(3);
        if (r == 0) {
          byte[] v = value(rnd);
          t.put(key(i), v, 0, ++lsn);
          model.put(i, v);
        } else if (r == 1) {
          t.remove(key(i), ++lsn);
          model.remove(i);
        }
      }
      readAll(t, model, keys, seed); // from the memtable
      t.flush();
      readAll(t, model, keys, seed); // newest file first, rows of both files
      readAll(t, model, keys, seed);
      StatsWait.untilLevel0Compacted(t); // both files merged: their rows are dropped with them
      readAll(t, model, keys, seed);
      readAll(t, model, keys, seed);
      d = t.stats().details();
      assertThat(d.get("level.1.files")).as("%s", d).isPositive();
      assertThat(d.get("block.cache.bytes")).as("%s", d).isLessThanOrEqualTo(4L << 20);
    }
  }

  @Test
  void valuesReturnedFromRows_andKeysPassedIn_areTheCallers() throws Exception {
    try (EngineTable t = open(dir, true)) {
      t.put(key(1), "one".getBytes(StandardCharsets.UTF_8), 0, 1);
      t.flush();
      byte[] k = key(1);
      byte[] first = t.get(k); // admits the row
      Arrays.fill(k, (byte) 'x'); // the cache must have kept its own copy of the key
      Arrays.fill(first, (byte) 0);
      byte[] second = t.get(key(1)); // from the row
      assertThat(second).asString(StandardCharsets.UTF_8).isEqualTo("one");
      Arrays.fill(second, (byte) 0);
      assertThat(t.get(key(1))).asString(StandardCharsets.UTF_8).isEqualTo("one");
      assertThat(t.get(k)).isNull();
      assertThat(t.stats().details().get("row.cache.hits")).isEqualTo(2);
    }
  }

  /**
   * A memtable value lives in the memtable arena's direct memory and a row's in the cache's, so
   * each getReadOnly gets a copy of its own, never the array that was put.
   */
  @Test
  void getReadOnly_copiesAnArenaValue_andARow() throws Exception {
    try (EngineTable t = open(dir, true)) {
      byte[] put = "one".getBytes(StandardCharsets.UTF_8);
      t.put(key(1), put, 0, 1);
      byte[] fromMemtable = t.getReadOnly(key(1));
      assertThat(fromMemtable).asString(StandardCharsets.UTF_8).isEqualTo("one");
      assertThat(fromMemtable).isNotSameAs(put);
      assertThat(t.getReadOnly(key(1))).isNotSameAs(fromMemtable).isEqualTo(fromMemtable);
      assertThat(t.get(key(1))).isNotSameAs(fromMemtable).isEqualTo(fromMemtable);
      t.flush();
      byte[] fromRow = t.getReadOnly(key(1)); // the flush cached the row: the memtable read marked it
      assertThat(fromRow).asString(StandardCharsets.UTF_8).isEqualTo("one");
      assertThat(t.getReadOnly(key(1))).isNotSameAs(fromRow).isEqualTo(fromRow);
      assertThat(t.get(key(1))).isNotSameAs(fromRow).isEqualTo(fromRow);
      assertThat(t.getReadOnly(key(2))).isNull();
      assertThat(t.stats().details().get("row.cache.hits")).isEqualTo(3);
      t.put(key(3), "three".getBytes(StandardCharsets.UTF_8), 0, 2);
      t.flush(); // key 3 never read: its first read comes from a block and admits the row
      assertThat(t.getReadOnly(key(3))).asString(StandardCharsets.UTF_8).isEqualTo("three");
      byte[] three = t.getReadOnly(key(3));
      assertThat(t.getReadOnly(key(3))).isNotSameAs(three).isEqualTo(three);
      assertThat(t.stats().details().get("row.cache.hits")).isEqualTo(5);
    }
  }

  @Test
  void rowCacheOff_keepsNoRows() throws Exception {
    try (EngineTable t = open(dir, false)) {
      t.put(key(1), "one".getBytes(StandardCharsets.UTF_8), 0, 1);
      t.flush();
      for (int i = 0; i < 3; i++) {
        assertThat(t.get(key(1))).asString(StandardCharsets.UTF_8).isEqualTo("one");
      }
      Map<String, Long> d = t.stats().details();
      assertThat(d.get("row.cache.hits") + d.get("row.cache.misses")).isZero();
      assertThat(d.get("block.cache.hits")).isEqualTo(3);
    }
  }
}
