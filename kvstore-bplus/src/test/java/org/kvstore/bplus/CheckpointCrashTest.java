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
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.TestScale;

/**
 * Crash consistency of checkpoints (docs/format/bplus.md section 4): after checkpoint 1, more
 * writes (with evictions writing dirty pages back) and checkpoint 2 run on a file system that
 * crashes at the k-th page write, dropped or torn in half, and then loses a random part of what
 * was not synced. The reopened table must equal checkpoint 1 or (only when checkpoint 2 got as far
 * as its meta page) checkpoint 2, and pass the tree's invariants: never mixed data.
 */
class CheckpointCrashTest {
  @TempDir Path root;

  private static final int OPS = 1200;

  @Test
  void crashAtKthWrite_reopensAtTheLastCompleteCheckpoint() throws Exception {
    run(false);
  }

  @Test
  void tornPageAtKthWrite_reopensAtTheLastCompleteCheckpoint() throws Exception {
    run(true);
  }

  private void run(boolean torn) throws Exception {
    long seed = Seeds.seed("CheckpointCrashTest." + (torn ? "torn" : "crash"));
    long total = writesOfScenario(seed);
    assertThat(total).as("the scenario writes pages").isGreaterThan(10);
    int samples = TestScale.current().isLongRun() ? (int) total + 1 : 30;
    List<Long> ks = new ArrayList<>();
    for (int i = 0; i < samples; i++) {
      ks.add(1 + (total * i) / samples);
    }
    for (long k = Math.max(1, total - 4); k <= total + 1; k++) {
      ks.add(k); // the page table, meta page and sync at the very end
    }
    int atOne = 0;
    int atTwo = 0;
    for (long k : ks) {
      try {
        int which = scenario(seed, k, torn);
        if (which == 1) {
          atOne++;
        } else {
          atTwo++;
        }
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + ", crash at write " + k + (torn ? " torn" : "")
            + ": " + e.getMessage(), e);
      }
    }
    assertThat(atOne).as("some crashes land before checkpoint 2 is durable").isPositive();
    assertThat(atTwo).as("the crash after the last write leaves checkpoint 2").isPositive();
  }

  /** Writes from arming to the end of checkpoint 2, without a crash. */
  private long writesOfScenario(long seed) throws Exception {
    Path dir = Files.createDirectories(root.resolve("dry"));
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem().recordUnsyncedWrites();
    TableHarness h = harness(dir);
    Random rnd = new Random(seed);
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    try (BPlusTable t = h.open(fs)) {
      randomOps(t, model, rnd, OPS);
      h.lsn.set(1);
      t.flush();
      long start = fs.writeCount();
      randomOps(t, model, rnd, OPS);
      h.lsn.set(2);
      t.flush();
      return fs.writeCount() - start;
    }
  }

  /** Returns which checkpoint the reopened table holds. */
  private int scenario(long seed, long k, boolean torn) throws Exception {
    Path dir = Files.createDirectories(root.resolve("k" + k + (torn ? "t" : "")));
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem().recordUnsyncedWrites();
    TableHarness h = harness(dir);
    Random rnd = new Random(seed);
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    BPlusTable t = h.open(fs);
    randomOps(t, model, rnd, OPS);
    h.lsn.set(1);
    t.flush();
    TreeMap<byte[], byte[]> one = new TreeMap<>(model);
    fs.crashAtWrite(k, torn);
    boolean opsDone = false;
    boolean flushed = false;
    try {
      randomOps(t, model, rnd, OPS);
      opsDone = true;
      h.lsn.set(2);
      t.flush();
      flushed = true;
    } catch (IOException e) {
      assertThat(fs.crashed()).as("only the injected crash fails: %s", e).isTrue();
    }
    fs.simulatePowerLoss(new Random(seed ^ k));
    t.close();

    try (BPlusTable reopened = new TableHarness(dir).with("page.size", "4KiB")
        .with("buffer.size", "64KiB").open(LocalFileSystem.INSTANCE)) {
      reopened.tree().checkInvariants();
      TreeMap<byte[], byte[]> got = scan(reopened);
      long lsn = reopened.persistedLsn();
      if (flushed) {
        assertThat(lsn).isEqualTo(2);
      }
      if (lsn == 2) {
        assertThat(opsDone).isTrue();
        assertEqual(got, model);
        return 2;
      }
      assertThat(lsn).isEqualTo(1);
      assertEqual(got, one);
      return 1;
    }
  }

  private static TableHarness harness(Path dir) {
    return new TableHarness(dir).with("page.size", "4KiB").with("buffer.size", "64KiB");
  }

  static void randomOps(BPlusTable t, TreeMap<byte[], byte[]> model, Random rnd, int n)
      throws IOException {
    for (int i = 0; i < n; i++) {
      byte[] key = ("key-" + rnd.nextInt(2000)).getBytes();
      if (rnd.nextInt(10) < 3) {
        t.remove(key, 0);
        model.remove(key);
      } else {
        int len = rnd.nextInt(20) == 0 ? 2000 + rnd.nextInt(6000) : rnd.nextInt(200);
        byte[] v = new byte[len];
        rnd.nextBytes(v);
        t.put(key, v, 0, 0);
        model.put(key, v);
      }
    }
  }

  static TreeMap<byte[], byte[]> scan(BPlusTable t) throws IOException {
    TreeMap<byte[], byte[]> got = new TreeMap<>(Arrays::compareUnsigned);
    try (Cursor c = t.newCursor(null, null)) {
      while (c.next()) {
        got.put(c.key(), c.value());
      }
    }
    return got;
  }

  static void assertEqual(TreeMap<byte[], byte[]> got, TreeMap<byte[], byte[]> expected) {
    assertThat(got.size()).as("entries").isEqualTo(expected.size());
    for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
      assertThat(got.get(e.getKey())).as("value of %s", new String(e.getKey()))
          .isEqualTo(e.getValue());
    }
  }
}
