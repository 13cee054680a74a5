package org.kvstore.bplus;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.bplus.page.MetaPage;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.testkit.Seeds;

/**
 * The B+tree gives the space of an emptied tree back (docs/format/bplus.md sections 4 and 7): the
 * checkpoint after the last remove collapses the tree to an empty root leaf, moves the live pages
 * down and cuts the file's free tail; readers, scanners and open cursors stay correct across it,
 * and a crash in the middle of it reopens at one of the two checkpoints.
 */
class BPlusSpaceReclaimTest {
  private static final int KEYS = 6_000;

  @TempDir Path dir;

  /** Key {@code i}: short, except every 97th, which is longer than an inline key (a key chain). */
  static byte[] key(int i) {
    String k = String.format("k%06d", i);
    if (i % 97 == 0) {
      k = k + "-" + "x".repeat(1_500);
    }
    return k.getBytes(StandardCharsets.US_ASCII);
  }

  /** {@code key@round#} and filler; every 50th value is longer than a page (a value chain). */
  static byte[] value(byte[] key, int round) {
    byte[] head = (new String(key, StandardCharsets.US_ASCII) + "@" + round + "#")
        .getBytes(StandardCharsets.US_ASCII);
    int len = head.length + (key[6] % 5 == 0 && key[5] % 5 == 0 ? 5_000 : 40);
    byte[] v = Arrays.copyOf(head, len);
    Arrays.fill(v, head.length, len, (byte) round);
    return v;
  }

  /** Whether {@code v} is a value {@link #value} makes for {@code key} (in any round). */
  static boolean isValueOf(byte[] key, byte[] v) {
    int n = key.length;
    return v.length > n && Arrays.equals(v, 0, n, key, 0, n) && v[n] == '@';
  }

  private TableHarness harness(Path d) {
    return new TableHarness(d).with("page.size", "4KiB").with("buffer.size", "256KiB");
  }

  /** The meta page with the higher checkpoint sequence (4 KiB pages). */
  private static MetaPage newestMeta(Path file) throws IOException {
    byte[] all = Files.readAllBytes(file);
    MetaPage best = null;
    for (int slot = 0; slot < 2; slot++) {
      MetaPage m = MetaPage.decodeFrom(
          Arrays.copyOfRange(all, slot * 4096, (slot + 1) * 4096), file, slot);
      if (best == null || m.checkpointSeq() > best.checkpointSeq()) {
        best = m;
      }
    }
    return best;
  }

  private static void load(BPlusTable t, TreeMap<byte[], byte[]> model, int round)
      throws IOException {
    for (int i = 0; i < KEYS; i++) {
      byte[] k = key(i);
      byte[] v = value(k, round);
      t.put(k, v, 0, 0);
      if (model != null) {
        model.put(k, v);
      }
    }
  }

  private static void removeAll(BPlusTable t, TreeMap<byte[], byte[]> model) throws IOException {
    for (int i = 0; i < KEYS; i++) {
      t.remove(key(i), 0);
    }
    if (model != null) {
      model.clear();
    }
  }

  @Test
  void removeEverything_checkpoint_shrinksTheFileAndTheTree() throws Exception {
    TableHarness h = harness(dir);
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    long peak;
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      load(t, model, 1);
      h.lsn.set(1);
      t.flush();
      peak = t.stats().bytesOnDisk();
      assertThat(t.tree().height()).isGreaterThan(1);

      removeAll(t, model);
      h.lsn.set(2);
      t.flush();
      peak = Math.max(peak, Files.size(dir.resolve(BPlusTable.FILE_NAME)));

      t.tree().checkInvariants(); // every live page reachable: nothing leaked
      assertThat(t.tree().height()).isEqualTo(1);
      assertThat(t.stats().details().get("pages")).isEqualTo(1L);
      assertThat(Files.size(dir.resolve(BPlusTable.FILE_NAME))).isLessThanOrEqualTo(peak / 20);
      assertThat(newestMeta(dir.resolve(BPlusTable.FILE_NAME)).logicalPages())
          .as("the page table of the collapsed tree names the root only").isEqualTo(2);
      assertThat(CheckpointCrashTest.scan(t)).isEmpty();

      for (int i = 0; i < KEYS; i += 3) { // the collapsed tree grows again
        byte[] k = key(i);
        t.put(k, value(k, 3), 0, 0);
        model.put(k, value(k, 3));
      }
      h.lsn.set(3);
      t.flush();
      t.tree().checkInvariants();
    }
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      t.tree().checkInvariants();
      assertThat(t.persistedLsn()).isEqualTo(3);
      CheckpointCrashTest.assertEqual(CheckpointCrashTest.scan(t), model);
      assertThat(t.get(key(97 * 3))).isEqualTo(value(key(97 * 3), 3));
      assertThat(t.get(key(1))).isNull();
    }
  }

  @Test
  void overflowValuesReplaced_checkpoint_movesLivePagesDownAndShrinks() throws Exception {
    TableHarness h = harness(dir);
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    Random rnd = new Random(Seeds.seed("BPlusSpaceReclaimTest.move"));
    long before;
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      for (int i = 0; i < 3_000; i++) { // leaves spread among overflow pages across the file
        byte[] k = key(i);
        byte[] v = new byte[i % 4 == 0 ? 7_000 : 30];
        rnd.nextBytes(v);
        t.put(k, v, 0, 0);
        model.put(k, v);
      }
      h.lsn.set(1);
      t.flush();
      before = Files.size(dir.resolve(BPlusTable.FILE_NAME));
      for (int i = 0; i < 3_000; i += 4) { // frees the chains: most of the file
        byte[] k = key(i);
        byte[] v = new byte[30];
        rnd.nextBytes(v);
        t.put(k, v, 0, 0);
        model.put(k, v);
      }
      h.lsn.set(2);
      long live = t.stats().details().get("pages");
      long bound = (3 * live + 40) * 4096;
      int checkpoints = 0;
      do { // each checkpoint moves at most a quarter of the buffer pool's pages
        t.flush();
        checkpoints++;
        t.tree().checkInvariants();
        CheckpointCrashTest.assertEqual(CheckpointCrashTest.scan(t), model);
      } while (Files.size(dir.resolve(BPlusTable.FILE_NAME)) > bound && checkpoints < 10);
      assertThat(Files.size(dir.resolve(BPlusTable.FILE_NAME)))
          .as("file of %s live pages, %s bytes before, after %s checkpoints", live, before,
              checkpoints)
          .isLessThanOrEqualTo(bound);
    }
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      t.tree().checkInvariants();
      CheckpointCrashTest.assertEqual(CheckpointCrashTest.scan(t), model);
      for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
        assertThat(t.get(e.getKey())).isEqualTo(e.getValue());
      }
    }
  }

  @Test
  void shrunkFile_reopensEmpty() throws Exception {
    TableHarness h = harness(dir);
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      load(t, null, 1);
      h.lsn.set(1);
      t.flush();
      removeAll(t, null);
      h.lsn.set(2);
      t.flush();
    }
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      t.tree().checkInvariants();
      assertThat(t.persistedLsn()).isEqualTo(2);
      assertThat(t.stats().entryEstimate()).isZero();
      assertThat(t.get(key(5))).isNull();
      assertThat(CheckpointCrashTest.scan(t)).isEmpty();
    }
  }

  @Test
  void cursorOpenAcrossACollapse_resumesAfterItsLastKey() throws Exception {
    TableHarness h = harness(dir);
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      load(t, model, 1);
      h.lsn.set(1);
      t.flush();
      List<byte[]> got = new ArrayList<>();
      try (Cursor c = t.newCursor(null, null)) {
        for (int i = 0; i < 500; i++) { // well past the first leaves: it follows sibling links
          assertThat(c.next()).isTrue();
          got.add(c.key());
        }
        byte[] last = got.get(got.size() - 1);
        removeAll(t, model);
        h.lsn.set(2);
        t.flush(); // collapses: the cursor's next leaf is freed, and its id is reused below
        load(t, model, 2);
        while (c.next()) {
          assertThat(isValueOf(c.key(), c.value())).as("value of %s", c.key()).isTrue();
          got.add(c.key());
        }
        List<byte[]> after = new ArrayList<>(model.tailMap(last, false).keySet());
        List<byte[]> rest = got.subList(500, got.size());
        assertThat(rest).hasSameSizeAs(after);
        for (int i = 0; i < after.size(); i++) {
          assertThat(rest.get(i)).isEqualTo(after.get(i));
        }
      }
      t.tree().checkInvariants();
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void readersAndScans_duringCollapses_seeOnlyRealValuesInOrder() throws Exception {
    TableHarness h = new TableHarness(dir).with("page.size", "4KiB").with("buffer.size", "128KiB");
    long seed = Seeds.seed("BPlusSpaceReclaimTest.concurrent");
    int rounds = 6;
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<Long>> readers = new ArrayList<>();
      try {
        for (int r = 0; r < 2; r++) {
          Random rnd = new Random(seed + r);
          readers.add(pool.submit(() -> {
            long found = 0;
            while (!stop.get()) {
              byte[] k = key(rnd.nextInt(KEYS));
              byte[] v = t.get(k);
              if (v != null) {
                assertThat(isValueOf(k, v)).as("value of %s", new String(k)).isTrue();
                found++;
              }
            }
            return found;
          }));
        }
        for (int s = 0; s < 2; s++) {
          readers.add(pool.submit(() -> {
            long seen = 0;
            while (!stop.get()) {
              byte[] prev = null;
              try (Cursor c = t.newCursor(null, null)) {
                while (c.next()) {
                  if (prev != null) {
                    assertThat(Arrays.compareUnsigned(prev, c.key())).as("scan order").isNegative();
                  }
                  assertThat(isValueOf(c.key(), c.value())).as("value of %s", c.key()).isTrue();
                  prev = c.key();
                  seen++;
                  Thread.yield(); // slow: checkpoints collapse the tree under open cursors
                }
              }
            }
            return seen;
          }));
        }
        for (int round = 1; round <= rounds; round++) {
          load(t, null, round);
          h.lsn.incrementAndGet();
          t.flush();
          removeAll(t, null);
          h.lsn.incrementAndGet();
          t.flush();
          assertThat(t.tree().height()).isEqualTo(1);
        }
        stop.set(true);
        long total = 0;
        for (Future<Long> f : readers) {
          total += f.get(2, TimeUnit.MINUTES);
        }
        assertThat(total).as("the readers saw values").isPositive();
      } finally {
        stop.set(true);
        pool.shutdownNow();
        pool.awaitTermination(1, TimeUnit.MINUTES);
      }
      t.tree().checkInvariants();
    }
  }

  @Test
  void crashDuringAShrinkingCheckpoint_reopensAtACompleteCheckpoint() throws Exception {
    long seed = Seeds.seed("BPlusSpaceReclaimTest.crash");
    long total;
    {
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem().recordUnsyncedWrites();
      Path d = Files.createDirectories(dir.resolve("dry"));
      TableHarness h = harness(d);
      try (BPlusTable t = h.open(fs)) {
        load(t, null, 1);
        h.lsn.set(1);
        t.flush();
        removeAll(t, null);
        long start = fs.writeCount();
        h.lsn.set(2);
        t.flush();
        total = fs.writeCount() - start;
      }
    }
    assertThat(total).as("the shrinking checkpoint writes pages").isGreaterThan(3);
    int atOne = 0;
    int atTwo = 0;
    Random pick = new Random(seed);
    List<Long> ks = new ArrayList<>();
    for (long k = 1; k <= total + 1; k++) {
      if (k <= 4 || k >= total - 3 || pick.nextInt(4) == 0) {
        ks.add(k);
      }
    }
    for (long k : ks) {
      for (boolean torn : new boolean[] {false, true}) {
        Path d = Files.createDirectories(dir.resolve("k" + k + (torn ? "t" : "")));
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem().recordUnsyncedWrites();
        TableHarness h = harness(d);
        TreeMap<byte[], byte[]> one = new TreeMap<>(Arrays::compareUnsigned);
        BPlusTable t = h.open(fs);
        load(t, one, 1);
        h.lsn.set(1);
        t.flush();
        removeAll(t, null);
        fs.crashAtWrite(k, torn);
        try {
          h.lsn.set(2);
          t.flush();
        } catch (IOException e) {
          assertThat(fs.crashed()).as("only the injected crash fails: %s", e).isTrue();
        }
        fs.simulatePowerLoss(new Random(seed ^ k));
        t.close();
        TableHarness reopen = harness(d);
        reopen.lsn.set(3);
        try (BPlusTable r = reopen.open(LocalFileSystem.INSTANCE)) {
          String at = "crash at write " + k + (torn ? " (torn)" : "") + ", seed " + seed;
          r.tree().checkInvariants();
          TreeMap<byte[], byte[]> got = CheckpointCrashTest.scan(r);
          if (r.persistedLsn() == 2) {
            assertThat(got).as(at).isEmpty();
            atTwo++;
          } else {
            assertThat(r.persistedLsn()).as(at).isEqualTo(1);
            CheckpointCrashTest.assertEqual(got, one);
            atOne++;
          }
          byte[] k0 = key(0);
          r.put(k0, value(k0, 9), 0, 0); // and it takes writes and checkpoints again
          r.flush();
          r.tree().checkInvariants();
        }
      }
    }
    assertThat(atOne).as("crashes before the checkpoint is durable").isPositive();
    assertThat(atTwo).as("crashes after it").isPositive();
  }
}
