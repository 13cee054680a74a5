package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.StoreOptions;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.lsm.version.ManifestFormat;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.Mutation;
import org.kvstore.spi.TableProperties;
import org.kvstore.testkit.FakeClock;

/**
 * Versions and expiry in the LSM engine: each entry keeps the LSN it was written at and its expiry
 * through flushes, compactions and reopens; expired entries are absent for every read path and hide
 * older entries of their key; time moves by a {@link FakeClock}.
 */
class LsmExpiryTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final long HOUR = 3_600_000;

  @TempDir Path dir;
  private final FakeClock clock = new FakeClock(T0);
  private final AtomicLong applied = new AtomicLong();

  private EngineTable open(Properties p) throws Exception {
    LsmEngine engine = new LsmEngine();
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), p);
    return engine.open(new EngineContext(dir, LocalFileSystem.INSTANCE, tp, "expiry.t", applied::get,
        StoreOptions.defaultBlockCacheBytes(), StoreOptions.defaultWriteBufferBytes(), clock));
  }

  private static Properties small() {
    Properties p = new Properties();
    p.put("memtable.size", "64KiB");
    p.put("block.size", "1KiB");
    p.put("level0.compaction.trigger", "2");
    return p;
  }

  private static byte[] key(int i) {
    return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** What a key should read as: value, version, expiry. */
  private record Want(byte[] value, long version, long expiresAt) {}

  private static void checkEntries(EngineTable t, Map<Integer, Want> model, String when) throws Exception {
    // Twice: the second read of a key in an SSTable may come from the row cache.
    for (int round = 0; round < 2; round++) {
      checkPointReads(t, model, when + " (read " + round + ")");
    }
    checkCursor(t, model, when);
  }

  private static void checkPointReads(EngineTable t, Map<Integer, Want> model, String when) throws Exception {
    for (Map.Entry<Integer, Want> e : model.entrySet()) {
      Entry got = t.getEntry(key(e.getKey()));
      Want w = e.getValue();
      assertThat(got).as("%s: key %d", when, e.getKey()).isNotNull();
      assertThat(got.value()).as("%s: value of %d", when, e.getKey()).isEqualTo(w.value());
      assertThat(got.version()).as("%s: version of %d", when, e.getKey()).isEqualTo(w.version());
      assertThat(got.expiresAt()).as("%s: expiry of %d", when, e.getKey()).isEqualTo(w.expiresAt());
      assertThat(t.get(key(e.getKey()))).as("%s: get of %d", when, e.getKey()).isEqualTo(w.value());
    }
  }

  private static void checkCursor(EngineTable t, Map<Integer, Want> model, String when) throws Exception {
    int seen = 0;
    try (Cursor c = t.newCursor(null, null)) {
      while (c.next()) {
        int k = Integer.parseInt(new String(c.key(), StandardCharsets.UTF_8).substring(3));
        Want w = model.get(k);
        assertThat(w).as("%s: cursor key %d", when, k).isNotNull();
        assertThat(c.value()).isEqualTo(w.value());
        assertThat(c.version()).as("%s: cursor version of %d", when, k).isEqualTo(w.version());
        assertThat(c.expiresAt()).as("%s: cursor expiry of %d", when, k).isEqualTo(w.expiresAt());
        seen++;
      }
    }
    assertThat(seen).as("%s: keys the cursor saw", when).isEqualTo(model.size());
  }

  @Test
  void versionsAndExpiry_surviveFlushCompactionAndReopen_asTheLsnGiven() throws Exception {
    Map<Integer, Want> model = new HashMap<>();
    int keys = 1000;
    try (EngineTable t = open(small())) {
      for (int i = 0; i < keys; i++) {
        long expiresAt = i % 2 == 0 ? T0 + HOUR + i : Entry.NO_EXPIRY;
        byte[] v = b("v" + i + "-".repeat(50));
        t.put(key(i), v, expiresAt, 1000 + i);
        model.put(i, new Want(v, 1000 + i, expiresAt));
      }
      checkEntries(t, model, "memtable");
      t.flush();
      checkEntries(t, model, "flushed");
      assertThat(t.stats().details().get("row.cache.hits")).as("rows read from the row cache").isPositive();
      // A second file over the odd keys, by batches: each mutation's version is its batch's LSN.
      for (int batch = 0; batch < 10; batch++) {
        List<Mutation> ms = new ArrayList<>();
        for (int i = 1 + batch * 100; i < (batch + 1) * 100; i += 2) {
          byte[] v = b("w" + i);
          long expiresAt = i % 3 == 0 ? T0 + 2 * HOUR : Entry.NO_EXPIRY;
          ms.add(Mutation.put(key(i), v, expiresAt));
          model.put(i, new Want(v, 5000 + batch, expiresAt));
        }
        t.apply(ms, 5000 + batch);
      }
      t.flush();
      StatsWait.untilLevel0Compacted(t);
      checkEntries(t, model, "compacted");
    }
    try (EngineTable t = open(small())) {
      checkEntries(t, model, "reopened");
    }
  }

  /** Where the entry that expires sits when its time passes. */
  enum Place { MEMTABLE, SSTABLE, ROW_CACHE }

  @ParameterizedTest
  @EnumSource(Place.class)
  void expiredEntry_isAbsentForEveryReadPath(Place place) throws Exception {
    byte[] k = b("expiring");
    byte[] stay = b("staying");
    try (EngineTable t = open(small())) {
      t.put(k, b("soon gone"), T0 + 100, 1);
      t.put(stay, b("here"), Entry.NO_EXPIRY, 2);
      if (place != Place.MEMTABLE) {
        t.flush();
      }
      if (place == Place.ROW_CACHE) {
        for (int i = 0; i < 3; i++) {
          assertThat(t.get(k)).isEqualTo(b("soon gone"));
        }
        assertThat(t.stats().details().get("row.cache.hits")).isPositive();
      }
      clock.advanceMillis(100); // its last millisecond: still there
      assertThat(t.get(k)).isEqualTo(b("soon gone"));
      assertThat(t.getEntry(k).expiresAt()).isEqualTo(T0 + 100);
      clock.advanceMillis(1);
      assertThat(t.get(k)).isNull();
      assertThat(t.getReadOnly(k)).isNull();
      assertThat(t.getEntry(k)).isNull();
      byte[][] values = new byte[2][];
      t.multiGetReadOnly(new byte[][] {k, stay}, values);
      assertThat(values[0]).isNull();
      assertThat(values[1]).isEqualTo(b("here"));
      List<String> keys = new ArrayList<>();
      try (Cursor c = t.newCursor(null, null)) {
        while (c.next()) {
          keys.add(new String(c.key(), StandardCharsets.UTF_8));
        }
      }
      assertThat(keys).containsExactly("staying");
      try (Cursor c = t.newCursor(k, null)) {
        assertThat(c.next()).isTrue();
        assertThat(c.key()).isEqualTo(stay);
      }
    }
  }

  /** Where the newer, expiring entry sits above the older value (an SSTable) when time passes. */
  enum Above { MEMTABLE, LEVEL0, FLUSHED_AFTER_EXPIRY }

  @ParameterizedTest
  @EnumSource(Above.class)
  void expiredNewestEntry_hidesTheOlderValue(Above above) throws Exception {
    Properties p = small();
    p.put("level0.compaction.trigger", "100"); // the two files stay where they are written
    p.put("level0.stop.writes.trigger", "200");
    byte[] k = b("k");
    try (EngineTable t = open(p)) {
      t.put(k, b("old"), Entry.NO_EXPIRY, 1);
      t.flush();
      t.put(k, b("new"), T0 + 10, 2);
      if (above == Above.LEVEL0) {
        t.flush();
      }
      assertThat(t.get(k)).isEqualTo(b("new"));
      clock.advanceMillis(11);
      if (above == Above.FLUSHED_AFTER_EXPIRY) {
        t.flush(); // writes the expired put as a tombstone
      }
      assertAbsent(t, k);
      t.flush(); // the memtable's entries too: the engine keeps no log of its own
      assertAbsent(t, k);
    }
    try (EngineTable t = open(p)) {
      assertAbsent(t, k);
    }
  }

  private static void assertAbsent(EngineTable t, byte[] k) throws Exception {
    assertThat(t.get(k)).isNull();
    assertThat(t.getReadOnly(k)).isNull();
    assertThat(t.getEntry(k)).isNull();
    byte[][] values = new byte[1][];
    t.multiGetReadOnly(new byte[][] {k}, values);
    assertThat(values[0]).isNull();
    try (Cursor c = t.newCursor(null, null)) {
      assertThat(c.next()).isFalse();
    }
  }

  @Test
  void expiredEntry_compactedAbove_olderValueBelow_staysAbsent() throws Exception {
    Properties p = small();
    p.put("level0.compaction.trigger", "1");
    p.put("num.levels", "3");
    byte[] k = b("k");
    try (EngineTable t = open(p)) {
      t.put(k, b("old"), Entry.NO_EXPIRY, 1);
      // Tombstones of other keys make the file mostly garbage: reclaim compactions push it down
      // to the last level, dropping the tombstones and keeping the old value.
      for (int i = 0; i < 10; i++) {
        t.remove(key(i), 2 + i);
      }
      t.flush();
      StatsWait.until(t, "old value at level 2",
          d -> d.get("level.2.files") == 1 && d.get("level.0.files") + d.get("level.1.files") == 0);
      t.put(k, b("new"), T0 + 10, 20);
      t.flush(); // moved to level 1 above the old value
      StatsWait.until(t, "new value at level 1", d -> d.get("level.1.files") == 1 && d.get("level.0.files") == 0);
      assertThat(t.get(k)).isEqualTo(b("new"));
      clock.advanceMillis(11);
      assertThat(t.get(k)).isNull();
      // Level 1's file is all expired now: a reclaim compaction takes it down and drops both.
      StatsWait.until(t, "both entries reclaimed",
          d -> d.get("level.1.files") + d.get("level.2.files") == 0);
      assertAbsent(t, k);
    }
    try (EngineTable t = open(p)) {
      assertAbsent(t, k);
    }
  }

  /**
   * Space comes back with the store's active expiry on: the expired keys are removed by
   * tombstones written through the normal write path, and the files of tombstones are compacted
   * away with no further write. The keys are written without expiry here, so that only the
   * tombstones can make their files worth compacting.
   */
  @Test
  void tombstonesOfRemovedKeys_bringBytesOnDiskAndEntriesNearZero() throws Exception {
    int keys = 50_000;
    try (EngineTable t = open(reclaimOptions())) {
      long peak = writeKeys(t, keys, false);
      long lsn = 1_000_000;
      for (int from = 0; from < keys; from += 500) {
        List<Mutation> batch = new ArrayList<>();
        for (int i = from; i < from + 500; i++) {
          batch.add(Mutation.remove(key(i)));
        }
        t.apply(batch, ++lsn);
      }
      t.flush();
      awaitNearlyEmpty(t, peak);
    }
  }

  /** Space comes back with the store's active expiry off: by time alone, with no write at all. */
  @Test
  void expiredEntriesWithoutTombstones_areCompactedAwayByTimeAlone() throws Exception {
    int keys = 50_000;
    try (EngineTable t = open(reclaimOptions())) {
      long peak = writeKeys(t, keys, true);
      for (int i = 0; i < keys; i += 997) {
        assertThat(t.get(key(i))).isNotNull();
      }
      clock.advanceMillis(HOUR);
      awaitNearlyEmpty(t, peak);
    }
  }

  private static Properties reclaimOptions() {
    Properties p = new Properties();
    p.put("memtable.size", "512KiB");
    p.put("block.size", "4KiB");
    p.put("target.file.size", "256KiB");
    p.put("level1.max.size", "1MiB");
    p.put("level.size.ratio", "4");
    return p;
  }

  /**
   * Writes {@code keys} keys, {@code expiring} within the next half hour or never; returns the
   * bytes on disk.
   */
  private long writeKeys(EngineTable t, int keys, boolean expiring) throws Exception {
    byte[] value = new byte[100];
    for (int i = 0; i < keys; i++) {
      t.put(key(i), value, expiring ? T0 + HOUR / 2 - i % 1000 : Entry.NO_EXPIRY, i + 1);
    }
    t.flush();
    // Let the size-triggered compactions finish: the data then lies in several levels.
    StatsWait.until(t, "levels settled", d -> d.get("level.0.files") < 4 && d.get("level.2.files") > 0);
    Thread.sleep(200);
    long bytes = t.stats().bytesOnDisk();
    assertThat(t.stats().entryEstimate()).isGreaterThanOrEqualTo(keys);
    assertThat(bytes).isGreaterThan(keys * 100L);
    return bytes;
  }

  private static void awaitNearlyEmpty(EngineTable t, long peakBytes) throws Exception {
    StatsWait.until(t, "no SSTables left", d -> {
      long files = 0;
      for (Map.Entry<String, Long> e : d.entrySet()) {
        if (e.getKey().startsWith("level.") && e.getKey().endsWith(".files")) {
          files += e.getValue();
        }
      }
      return files == 0;
    });
    assertThat(t.stats().entryEstimate()).isZero();
    assertThat(t.stats().bytesOnDisk()).as("bytes on disk (the manifest only)").isLessThan(peakBytes / 20);
    try (Cursor c = t.newCursor(null, null)) {
      assertThat(c.next()).isFalse();
    }
  }

  /** A table written by the version-1 formats (the golden files of both) opens and reads. */
  @Test
  void version1Table_opensReadsAndTakesNewWrites() throws Exception {
    Path golden = Path.of("src/test/resources/golden");
    Files.createDirectories(dir);
    Files.copy(golden.resolve("sstable-v1.bin"), dir.resolve("000001.sst"));
    Files.copy(golden.resolve("manifest-v1.bin"), dir.resolve(ManifestFormat.manifestName(2)));
    Files.write(dir.resolve(ManifestFormat.CURRENT), ManifestFormat.encodeCurrent(ManifestFormat.manifestName(2)));
    Properties p = small();
    try (EngineTable t = open(p)) {
      assertThat(t.get(b("apple"))).isEqualTo(b("red"));
      Entry apple = t.getEntry(b("apple"));
      assertThat(apple.version()).isZero();
      assertThat(apple.expiresAt()).isEqualTo(Entry.NO_EXPIRY);
      assertThat(t.get(b("apricot"))).isNull();
      t.put(b("banana"), b("yellow"), T0 + HOUR, 8);
      t.flush();
    }
    try (EngineTable t = open(p)) {
      assertThat(t.getEntry(b("apple")).version()).isZero();
      Entry banana = t.getEntry(b("banana"));
      assertThat(banana.version()).isEqualTo(8);
      assertThat(banana.expiresAt()).isEqualTo(T0 + HOUR);
      try (Cursor c = t.newCursor(null, null)) {
        assertThat(c.next()).isTrue();
        assertThat(c.key()).isEqualTo(b("apple"));
        assertThat(c.version()).isZero();
        assertThat(c.next()).isTrue();
        assertThat(c.key()).isEqualTo(b("banana"));
        assertThat(c.version()).isEqualTo(8);
        assertThat(c.next()).isFalse();
      }
    }
  }
}
