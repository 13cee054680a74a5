package org.kvstore.bplus;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.bplus.buffer.PinnedPage;
import org.kvstore.bplus.page.LeafPage;
import org.kvstore.bplus.page.PageFormat;
import org.kvstore.bplus.page.SlottedPage;
import org.kvstore.bplus.tree.BPlusTree;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.Mutation;
import org.kvstore.testkit.FakeClock;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.TestScale;

/**
 * Versions and expiry in the B+tree (docs/format/bplus.md section 3.3): stored in leaf cells,
 * kept through checkpoints and reopens, hidden by every read once expired, reclaimed when their
 * leaf is written; and tables of page format version 1 still open and take writes.
 */
class BPlusExpiryTest {
  private static final long T0 = 1_767_225_600_000L;

  @TempDir Path dir;

  private final FakeClock clock = new FakeClock(T0);

  private TableHarness small() {
    return new TableHarness(dir).with("page.size", "4KiB").with("buffer.size", "256KiB").with(clock);
  }

  private static byte[] b(String s) {
    return s.getBytes();
  }

  private static byte[] bytes(int n, int seed) {
    byte[] v = new byte[n];
    new Random(seed).nextBytes(v);
    return v;
  }

  /** A key too long to store inline (KEY_OVERFLOW on 4 KiB pages). */
  private static byte[] longKey(char c) {
    byte[] k = new byte[3000];
    Arrays.fill(k, (byte) c);
    return k;
  }

  @Test
  void put_versionsAndExpiry_surviveCheckpointAndReopen() throws IOException {
    TableHarness h = small();
    byte[] big = bytes(20_000, 1);
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      t.put(b("a"), b("inline"), T0 + 5_000, 7);
      t.put(b("b"), b("forever"), Entry.NO_EXPIRY, 8);
      t.put(b("c"), big, T0 + 2_000, 9);
      t.put(longKey('L'), b("long"), T0 + 10_000, 10);
      t.apply(List.of(Mutation.put(b("d"), b("batched"), T0 + 3_000), Mutation.put(b("e"), b("plain"))), 11);
      h.lsn.set(11);
      t.flush();
    }
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      assertEntry(t.getEntry(b("a")), b("inline"), 7, T0 + 5_000);
      assertEntry(t.getEntry(b("b")), b("forever"), 8, Entry.NO_EXPIRY);
      assertEntry(t.getEntry(b("c")), big, 9, T0 + 2_000);
      assertEntry(t.getEntry(longKey('L')), b("long"), 10, T0 + 10_000);
      assertEntry(t.getEntry(b("d")), b("batched"), 11, T0 + 3_000);
      assertEntry(t.getEntry(b("e")), b("plain"), 11, Entry.NO_EXPIRY);
      List<long[]> meta = new ArrayList<>();
      try (Cursor c = t.newCursor(null, null)) {
        while (c.next()) {
          meta.add(new long[] {c.version(), c.expiresAt()});
        }
      }
      assertThat(meta).containsExactly(
          new long[] {10, T0 + 10_000}, new long[] {7, T0 + 5_000}, new long[] {8, 0}, new long[] {9, T0 + 2_000},
          new long[] {11, T0 + 3_000}, new long[] {11, 0});
      t.tree().checkInvariants();
    }
  }

  private static void assertEntry(Entry e, byte[] value, long version, long expiresAt) {
    assertThat(e).isNotNull();
    assertThat(e.value()).isEqualTo(value);
    assertThat(e.version()).isEqualTo(version);
    assertThat(e.expiresAt()).isEqualTo(expiresAt);
  }

  @Test
  void everyReadPath_hidesExpiredEntries_fromTheMillisecondAfterExpiry() throws IOException {
    TableHarness h = small();
    long expiry = T0 + 1_000;
    byte[][] doomed = {b("k0100x"), b("k0300x"), longKey('M'), b("zz-last")};
    byte[][] doomedValues = {b("inline"), bytes(9_000, 2), b("long-key"), bytes(9_000, 3)};
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      TreeMap<byte[], byte[]> live = new TreeMap<>(Arrays::compareUnsigned);
      for (int i = 0; i < 600; i++) {
        byte[] k = b(String.format("k%04d", i));
        t.put(k, b("v" + i), Entry.NO_EXPIRY, i + 1);
        live.put(k, b("v" + i));
      }
      for (int i = 0; i < doomed.length; i++) {
        t.put(doomed[i], doomedValues[i], expiry, 1000 + i);
      }
      assertThat(t.tree().height()).isGreaterThan(1);

      clock.set(expiry); // the last millisecond the entries exist
      for (int i = 0; i < doomed.length; i++) {
        assertThat(t.get(doomed[i])).isEqualTo(doomedValues[i]);
        assertThat(t.getReadOnly(doomed[i])).isEqualTo(doomedValues[i]);
        assertEntry(t.getEntry(doomed[i]), doomedValues[i], 1000 + i, expiry);
      }
      assertThat(scan(t, null, null)).hasSize(live.size() + doomed.length);

      clock.set(expiry + 1);
      for (byte[] k : doomed) {
        assertThat(t.get(k)).isNull();
        assertThat(t.getReadOnly(k)).isNull();
        assertThat(t.getEntry(k)).isNull();
      }
      byte[][] values = new byte[doomed.length + 1][];
      byte[][] keys = Arrays.copyOf(doomed, doomed.length + 1);
      keys[doomed.length] = b("k0005");
      t.multiGetReadOnly(keys, values);
      for (int i = 0; i < doomed.length; i++) {
        assertThat(values[i]).as("multiGet of doomed key %d", i).isNull();
      }
      assertThat(values[doomed.length]).isEqualTo(b("v5"));
      TreeMap<byte[], byte[]> scanned = scan(t, null, null);
      CheckpointCrashTest.assertEqual(scanned, live);
      assertThat(scan(t, b("k0100x"), b("k0101"))).isEmpty();
      assertThat(scan(t, longKey('M'), b("N"))).isEmpty(); // a latched leaf copy (a long key)
      // Nothing wrote those leaves yet: the estimate still counts the expired cells.
      assertThat(t.stats().entryEstimate()).isEqualTo(live.size() + doomed.length);
      t.tree().checkInvariants();
    }
  }

  private static TreeMap<byte[], byte[]> scan(BPlusTable t, byte[] from, byte[] to) throws IOException {
    TreeMap<byte[], byte[]> got = new TreeMap<>(Arrays::compareUnsigned);
    try (Cursor c = t.newCursor(from, to)) {
      while (c.next()) {
        assertThat(got.put(c.key(), c.value())).isNull();
      }
    }
    return got;
  }

  @Test
  void writeToLeaf_dropsItsExpiredCellsAndFreesTheirOverflowPages() throws IOException {
    TableHarness h = small();
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      long pagesEmpty = t.stats().details().get("pages");
      for (int i = 0; i < 20; i++) {
        t.put(b("e" + (char) ('a' + i)), i % 4 == 0 ? bytes(5_000, i) : b("short"), T0 + 100, i + 1);
        t.put(b("f" + (char) ('a' + i)), b("kept"), i % 2 == 0 ? Entry.NO_EXPIRY : T0 + 5_000, i + 21);
      }
      assertThat(t.tree().height()).as("one leaf").isEqualTo(1);
      long pagesFull = t.stats().details().get("pages");
      assertThat(pagesFull - pagesEmpty).as("5 chains of 2 pages").isEqualTo(10);
      assertThat(t.stats().entryEstimate()).isEqualTo(40);

      clock.set(T0 + 101);
      assertThat(t.stats().entryEstimate()).as("no write yet").isEqualTo(40);
      t.put(b("g"), b("new"), Entry.NO_EXPIRY, 100);

      assertThat(t.stats().entryEstimate()).isEqualTo(21);
      assertThat(t.stats().details().get("pages")).isEqualTo(pagesEmpty);
      assertThat(leafCells(t, BPlusTree.ROOT_ID)).isEqualTo(21);
      t.tree().checkInvariants();
      assertThat(expiryHint(t, BPlusTree.ROOT_ID)).isEqualTo(LeafPage.hintFor(T0 + 5_000));
      h.lsn.set(100);
      t.flush();
    }
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      assertThat(t.stats().entryEstimate()).isEqualTo(21);
      assertThat(scan(t, null, null)).hasSize(21);
      t.tree().checkInvariants();
    }
  }

  @Test
  void removeFromLeaf_dropsItsExpiredCells() throws IOException {
    TableHarness h = small();
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      for (int i = 0; i < 10; i++) {
        t.put(b("x" + i), bytes(i == 0 ? 6_000 : 10, i), T0 + 10, i + 1);
      }
      t.put(b("y"), b("stays"), Entry.NO_EXPIRY, 11);
      long pagesBefore = t.stats().details().get("pages");
      clock.set(T0 + 11);
      t.remove(b("absent"), 12);
      assertThat(t.stats().entryEstimate()).isEqualTo(1);
      assertThat(t.stats().details().get("pages")).isEqualTo(pagesBefore - 2);
      assertThat(expiryHint(t, BPlusTree.ROOT_ID)).isZero();
      t.tree().checkInvariants();
    }
  }

  @Test
  void leafSplit_carriesNoExpiredCells() throws IOException {
    TableHarness h = small();
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      // A full leaf of cells expiring early, then an insert that does not fit without them.
      int n = 0;
      while (t.tree().height() == 1) {
        t.put(b(String.format("k%05d", n)), bytes(60, n), T0 + 50, n + 1);
        n++;
      }
      clock.set(T0 + 51);
      for (int i = 0; i < 300; i++) {
        t.put(b(String.format("k%05dz", i)), bytes(60, i), Entry.NO_EXPIRY, 10_000 + i);
      }
      assertThat(t.stats().entryEstimate()).isEqualTo(300);
      t.tree().checkInvariants();
      assertThat(scan(t, null, null)).hasSize(300);
    }
  }

  @Test
  void expiredWhileClosed_isAbsentAtOnceAfterReopen() throws IOException {
    TableHarness h = small();
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      t.put(b("session"), b("token"), T0 + 60_000, 1);
      h.lsn.set(1);
      t.flush();
    }
    clock.advanceMillis(60_001);
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      assertThat(t.get(b("session"))).isNull();
      assertThat(t.getEntry(b("session"))).isNull();
      assertThat(scan(t, null, null)).isEmpty();
    }
  }

  /**
   * The golden table {@code golden/bplus-store-v1/bplus.db} was written by the engine before page
   * format version 2 (commit 37f0782), 4 KiB pages: {@code key0000..key0299 -> value-NNNN}, then
   * {@code key0100} overwritten by a 10,000-byte value (byte i = i * 31 + 7, an overflow chain),
   * a 3,000-byte key (byte i = 'k' + i % 7, KEY_OVERFLOW) -> {@code long-key-value}, {@code
   * key0200} removed, checkpointed at LSN 303. Three version 1 leaves under a branch root.
   */
  private static TreeMap<byte[], byte[]> goldenV1Content() {
    TreeMap<byte[], byte[]> m = new TreeMap<>(Arrays::compareUnsigned);
    for (int i = 0; i < 300; i++) {
      m.put(b(String.format("key%04d", i)), b(String.format("value-%04d", i)));
    }
    byte[] big = new byte[10_000];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) (i * 31 + 7);
    }
    m.put(b("key0100"), big);
    byte[] longKey = new byte[3000];
    for (int i = 0; i < longKey.length; i++) {
      longKey[i] = (byte) ('k' + i % 7);
    }
    m.put(longKey, b("long-key-value"));
    m.remove(b("key0200"));
    return m;
  }

  private TableHarness goldenV1Copy() throws IOException {
    Path golden = Path.of("src/test/resources/golden/bplus-store-v1", BPlusTable.FILE_NAME);
    Files.copy(golden, dir.resolve(BPlusTable.FILE_NAME));
    return small();
  }

  @Test
  void versionOneTable_opensAndReadsWithVersionZeroAndNoExpiry() throws IOException {
    TableHarness h = goldenV1Copy();
    TreeMap<byte[], byte[]> expected = goldenV1Content();
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      assertThat(t.persistedLsn()).isEqualTo(303);
      assertThat(leafVersions(t)).containsOnly(1);
      for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
        assertEntry(t.getEntry(e.getKey()), e.getValue(), 0, Entry.NO_EXPIRY);
        assertThat(t.get(e.getKey())).isEqualTo(e.getValue());
      }
      try (Cursor c = t.newCursor(null, null)) {
        int n = 0;
        while (c.next()) {
          assertThat(c.version()).isZero();
          assertThat(c.expiresAt()).isZero();
          n++;
        }
        assertThat(n).isEqualTo(expected.size());
      }
      assertThat(t.stats().entryEstimate()).isEqualTo(expected.size());
      t.tree().checkInvariants();
      assertThat(leafVersions(t)).as("reads change no page").containsOnly(1);
    }
  }

  @Test
  void versionOneTable_takesWritesIntoOldLeaves_whichAreRewrittenAsVersionTwo() throws IOException {
    TableHarness h = goldenV1Copy();
    TreeMap<byte[], byte[]> expected = goldenV1Content();
    List<byte[]> expiring = new ArrayList<>();
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      long lsn = 303;
      // One write into each old leaf (they hold key0000-0092, key0093-0185, the rest).
      for (String k : new String[] {"key0010", "key0150", "key0250"}) {
        t.put(b(k), b("new " + k), T0 + 1_000, ++lsn);
        expiring.add(b(k));
        expected.remove(b(k));
      }
      t.remove(b("key0020"), ++lsn);
      expected.remove(b("key0020"));
      // Enough inserts into the middle leaf to split it: its old cells move to new pages.
      for (int i = 0; i < 150; i++) {
        byte[] k = b(String.format("key0120-%03d", i));
        t.put(k, b("v" + i), Entry.NO_EXPIRY, ++lsn);
        expected.put(k, b("v" + i));
      }
      t.put(b("key0100"), b("small now"), Entry.NO_EXPIRY, ++lsn); // frees the old chain
      expected.put(b("key0100"), b("small now"));
      t.tree().checkInvariants();
      assertThat(leafVersions(t)).containsOnly(2);
      assertEntry(t.getEntry(b("key0001")), b("value-0001"), 0, Entry.NO_EXPIRY);
      assertEntry(t.getEntry(b("key0010")), b("new key0010"), 304, T0 + 1_000);
      h.lsn.set(lsn);
      t.flush();
    }
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      assertThat(leafVersions(t)).containsOnly(2);
      assertEntry(t.getEntry(b("key0250")), b("new key0250"), 306, T0 + 1_000);
      clock.set(T0 + 1_001);
      for (byte[] k : expiring) {
        assertThat(t.get(k)).isNull();
      }
      CheckpointCrashTest.assertEqual(scan(t, null, null), expected);
      for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
        assertThat(t.get(e.getKey())).isEqualTo(e.getValue());
      }
      t.tree().checkInvariants();
    }
  }

  @Test
  void randomizedOps_withExpiryAndVersions_matchModel_acrossCheckpointsAndReopens()
      throws IOException {
    long seed = Seeds.seed("BPlusExpiryTest.randomized");
    Random rnd = new Random(seed);
    TableHarness h = small();
    TreeMap<byte[], Entry> model = new TreeMap<>(Arrays::compareUnsigned);
    BPlusTable t = h.open(LocalFileSystem.INSTANCE);
    int ops = TestScale.current().scaled(15_000);
    try {
      for (int op = 1; op <= ops; op++) {
        byte[] key = rnd.nextInt(60) == 0 ? longKey((char) ('A' + rnd.nextInt(10))) : b("k" + rnd.nextInt(2000));
        int kind = rnd.nextInt(100);
        long now = clock.millis();
        if (kind < 50) {
          byte[] v = bytes(rnd.nextInt(30) == 0 ? rnd.nextInt(12_000) : rnd.nextInt(200), op);
          long expiresAt = rnd.nextBoolean() ? Entry.NO_EXPIRY : now + rnd.nextInt(3_000);
          t.put(key, v, expiresAt, op);
          model.put(key, new Entry(v, op, expiresAt));
        } else if (kind < 65) {
          t.remove(key, op);
          model.remove(key);
        } else {
          Entry want = model.get(key);
          if (want != null && Entry.isExpired(want.expiresAt(), now)) {
            want = null;
          }
          Entry got = t.getEntry(key);
          if (want == null) {
            assertThat(got).isNull();
            assertThat(t.get(key)).isNull();
          } else {
            assertEntry(got, want.value(), want.version(), want.expiresAt());
          }
        }
        clock.advanceMillis(rnd.nextInt(3));
        if (op % 1500 == 0) {
          t.tree().checkInvariants();
          assertScanMatches(t, model, clock.millis());
          h.lsn.set(op);
          t.flush();
          if (rnd.nextBoolean()) {
            t.close();
            t = h.open(LocalFileSystem.INSTANCE);
          }
        }
      }
      t.tree().checkInvariants();
      assertScanMatches(t, model, clock.millis());
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    } finally {
      t.close();
    }
  }

  private static void assertScanMatches(BPlusTable t, TreeMap<byte[], Entry> model, long now)
      throws IOException {
    List<Map.Entry<byte[], Entry>> live = new ArrayList<>();
    for (Map.Entry<byte[], Entry> e : model.entrySet()) {
      if (!Entry.isExpired(e.getValue().expiresAt(), now)) {
        live.add(e);
      }
    }
    int i = 0;
    try (Cursor c = t.newCursor(null, null)) {
      while (c.next()) {
        assertThat(i).as("more entries than the model").isLessThan(live.size());
        Map.Entry<byte[], Entry> want = live.get(i++);
        assertThat(c.key()).isEqualTo(want.getKey());
        assertThat(c.value()).isEqualTo(want.getValue().value());
        assertThat(c.version()).isEqualTo(want.getValue().version());
        assertThat(c.expiresAt()).isEqualTo(want.getValue().expiresAt());
      }
    }
    assertThat(i).as("entries").isEqualTo(live.size());
    long estimate = t.stats().entryEstimate();
    assertThat(estimate).isBetween((long) live.size(), (long) model.size());
  }

  /**
   * Writers put entries that expire soon (some in overflow chains) and entries that never expire,
   * while the clock runs, readers and scanners read and checkpoints run: no read returns an entry
   * expired before the read began, never-expiring entries are always found whole, and the tree's
   * invariants hold afterwards. Values start with their expiry time, so readers can check it.
   */
  @Test
  @org.junit.jupiter.api.Timeout(120)
  void concurrentWritersReadersAndReclaim_neverReturnExpiredEntries() throws Exception {
    long seed = Seeds.seed("BPlusExpiryTest.concurrent");
    TableHarness h = new TableHarness(dir).with("page.size", "4KiB").with("buffer.size", "256KiB")
        .with(clock);
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      int writers = 3;
      for (int i = 0; i < 300; i++) {
        t.put(b(String.format("s%04d", i)), valueExpiring(Entry.NO_EXPIRY, 20), Entry.NO_EXPIRY, i + 1);
      }
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(writers + 4);
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicLong lsn = new java.util.concurrent.atomic.AtomicLong(1000);
      List<java.util.concurrent.Future<?>> writerFutures = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int id = w;
        writerFutures.add(pool.submit(() -> {
          Random rnd = new Random(seed + id);
          for (int i = 0; i < 5000; i++) {
            byte[] k = b(String.format("e%d-%04d", id, rnd.nextInt(800)));
            if (rnd.nextInt(6) == 0) {
              t.remove(k, lsn.incrementAndGet());
            } else {
              long expiresAt = clock.millis() + rnd.nextInt(40);
              int len = rnd.nextInt(30) == 0 ? 5_000 : 10 + rnd.nextInt(100);
              t.put(k, valueExpiring(expiresAt, len), expiresAt, lsn.incrementAndGet());
            }
          }
          return null;
        }));
      }
      List<java.util.concurrent.Future<?>> others = new ArrayList<>();
      others.add(pool.submit(() -> {
        while (!stop.get()) {
          clock.advanceMillis(1);
          java.util.concurrent.locks.LockSupport.parkNanos(20_000); // entries live a few ms
        }
        return null;
      }));
      others.add(pool.submit(() -> {
        Random rnd = new Random(seed);
        while (!stop.get()) {
          long before = clock.millis();
          byte[] k = rnd.nextBoolean()
              ? b(String.format("e%d-%04d", rnd.nextInt(writers), rnd.nextInt(800)))
              : b(String.format("s%04d", rnd.nextInt(300)));
          Entry e = t.getEntry(k);
          if (k[0] == 's') {
            assertThat(e).isNotNull();
          }
          if (e != null) {
            assertThat(expiryOf(e.value())).isEqualTo(e.expiresAt());
            assertThat(Entry.isExpired(e.expiresAt(), before)).isFalse();
          }
        }
        return null;
      }));
      others.add(pool.submit(() -> {
        while (!stop.get()) {
          int stable = 0;
          byte[] previous = null;
          try (Cursor c = t.newCursor(null, null)) {
            long before = clock.millis();
            while (c.next()) {
              assertThat(expiryOf(c.value())).isEqualTo(c.expiresAt());
              assertThat(Entry.isExpired(c.expiresAt(), before)).isFalse();
              if (previous != null) {
                assertThat(Arrays.compareUnsigned(previous, c.key())).isNegative();
              }
              previous = c.key();
              stable += c.key()[0] == 's' ? 1 : 0;
              before = clock.millis();
            }
          }
          assertThat(stable).isEqualTo(300);
        }
        return null;
      }));
      others.add(pool.submit(() -> {
        while (!stop.get()) {
          h.lsn.set(lsn.get());
          t.flush();
          Thread.sleep(20);
        }
        return null;
      }));
      try {
        for (java.util.concurrent.Future<?> f : writerFutures) {
          f.get(100, java.util.concurrent.TimeUnit.SECONDS);
        }
      } finally {
        stop.set(true);
      }
      for (java.util.concurrent.Future<?> f : others) {
        f.get(30, java.util.concurrent.TimeUnit.SECONDS);
      }
      pool.shutdown();
      t.tree().checkInvariants();
      clock.advanceMillis(1_000);
      t.put(b("e"), b("x"), Entry.NO_EXPIRY, lsn.incrementAndGet()); // one leaf reclaimed at least
      assertThat(scan(t, null, null)).hasSize(301);
      t.tree().checkInvariants();
    }
  }

  /** A value of {@code len} bytes (at least 8) that starts with {@code expiresAt}. */
  private static byte[] valueExpiring(long expiresAt, int len) {
    byte[] v = new byte[Math.max(8, len)];
    java.nio.ByteBuffer.wrap(v).putLong(expiresAt);
    return v;
  }

  private static long expiryOf(byte[] value) {
    return java.nio.ByteBuffer.wrap(value).getLong();
  }

  // ---- page inspection ----

  private static int leafCells(BPlusTable t, long pageId) throws IOException {
    try (PinnedPage p = t.pool().fetch(pageId).latchShared()) {
      return SlottedPage.count(p.data());
    }
  }

  private static long expiryHint(BPlusTable t, long pageId) throws IOException {
    try (PinnedPage p = t.pool().fetch(pageId).latchShared()) {
      return LeafPage.expiryHint(p.data());
    }
  }

  /** The format versions of the tree's leaves, left to right. */
  private static List<Integer> leafVersions(BPlusTable t) throws IOException {
    long id = BPlusTree.ROOT_ID;
    while (true) {
      try (PinnedPage p = t.pool().fetch(id).latchShared()) {
        if (SlottedPage.level(p.data()) == 0) {
          break;
        }
        id = SlottedPage.link(p.data()); // the leftmost child
      }
    }
    List<Integer> versions = new ArrayList<>();
    while (id != 0) {
      try (PinnedPage p = t.pool().fetch(id).latchShared()) {
        versions.add(PageFormat.version(p.data()));
        id = SlottedPage.link(p.data());
      }
    }
    return versions;
  }
}
