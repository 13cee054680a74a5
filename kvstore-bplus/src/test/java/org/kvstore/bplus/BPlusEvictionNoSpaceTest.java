package org.kvstore.bplus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.io.FaultInjectingFileSystem.NoSpaceAt;
import org.kvstore.io.NoSpace;
import org.kvstore.spi.Mutation;

/**
 * The page file cannot grow while a small buffer pool evicts dirty pages in the middle of tree
 * changes (splits, overflow chains): writes that cannot be given the space wait instead of failing
 * half way, the table is never latched, and once space returns the waiting writes are applied in
 * their order and the table takes writes again.
 */
class BPlusEvictionNoSpaceTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(Random rnd, String tag) {
    byte[] v = new byte[200 + rnd.nextInt(6000)]; // inline values and overflow chains of 1-2 pages
    rnd.nextBytes(v);
    byte[] t = b(tag + "|");
    System.arraycopy(t, 0, v, 0, t.length);
    return v;
  }

  private TableHarness harness() {
    // 16 frames of 4 KiB: almost every change evicts dirty pages.
    return new TableHarness(dir).with("page.size", "4KiB").with("buffer.size", "64KiB");
  }

  @Test
  void evictionWithoutSpace_writesWaitUntilSpaceReturns_thenApplyInOrder() throws IOException {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    TableHarness h = harness();
    Random rnd = new Random(42);
    Map<String, byte[]> expected = new LinkedHashMap<>();
    try (BPlusTable t = h.open(fs)) {
      for (int i = 0; i < 1500; i++) {
        String k = "k" + rnd.nextInt(3000);
        byte[] v = value(rnd, k + "-" + i);
        t.put(b(k), v, 0, h.lsn.incrementAndGet());
        expected.put(k, v);
      }
      t.flush();
      assertThat(t.pool().stats().evictions()).as("the pool evicts").isPositive();

      // The table's directory may grow by 25 pages from now on.
      fs.spaceQuota(dir, used(fs) + (100 << 10), NoSpaceAt.WRITE);
      IOException refused = null;
      int applied = 0;
      List<Object[]> waiting = new ArrayList<>(); // {key, value or null} in write order
      for (int i = 0; i < 20_000 && refused == null; i++) {
        String k = "k" + rnd.nextInt(3000);
        byte[] v = value(rnd, k + "-new-" + i);
        try {
          t.put(b(k), v, 0, h.lsn.incrementAndGet());
          expected.put(k, v);
          applied++;
        } catch (IOException e) {
          refused = e;
          waiting.add(new Object[] {k, v});
        }
      }
      assertThat(refused).as("a write ran out of space").isNotNull();
      assertThat(NoSpace.causedBy(refused)).as("%s is a full disk", refused).isTrue();
      assertThat(applied).as("writes applied before the space ran out").isPositive();

      // Later writes of the same key, removes and batches queue behind the waiting one.
      String first = (String) waiting.get(0)[0];
      byte[] again = value(rnd, first + "-again");
      assertThatThrownBy(() -> t.put(b(first), again, 0, h.lsn.incrementAndGet()))
          .isInstanceOf(IOException.class).matches(NoSpace::causedBy);
      waiting.add(new Object[] {first, again});
      String gone = expected.keySet().iterator().next();
      assertThatThrownBy(() -> t.remove(b(gone), h.lsn.incrementAndGet()))
          .isInstanceOf(IOException.class).matches(NoSpace::causedBy);
      waiting.add(new Object[] {gone, null});
      byte[] v1 = value(rnd, "batch-1");
      byte[] v2 = value(rnd, "batch-2");
      assertThatThrownBy(() -> t.apply(List.of(Mutation.put(b("batch-1"), v1), Mutation.put(b("batch-2"), v2)),
              h.lsn.incrementAndGet()))
          .isInstanceOf(IOException.class).matches(NoSpace::causedBy);
      waiting.add(new Object[] {"batch-1", v1});
      waiting.add(new Object[] {"batch-2", v2});

      // A checkpoint would persist an LSN above the waiting writes: refused, but not for good.
      assertThatThrownBy(t::flush).isInstanceOf(IOException.class).matches(NoSpace::causedBy);
      assertThatThrownBy(t::retryAfterNoSpace).isInstanceOf(IOException.class).matches(NoSpace::causedBy);

      // Reads go on and see every applied write; the tree is whole.
      for (Map.Entry<String, byte[]> e : expected.entrySet()) {
        assertThat(t.get(b(e.getKey()))).as(e.getKey()).isEqualTo(e.getValue());
      }
      t.tree().checkInvariants();

      fs.spaceQuota(dir, -1, NoSpaceAt.WRITE);
      t.retryAfterNoSpace();
      for (Object[] w : waiting) {
        if (w[1] == null) {
          expected.remove((String) w[0]);
        } else {
          expected.put((String) w[0], (byte[]) w[1]);
        }
      }
      t.put(b("after"), b("space returned"), 0, h.lsn.incrementAndGet());
      expected.put("after", b("space returned"));
      check(t, expected);
      t.flush();
    }
    try (BPlusTable t = h.open(fs)) {
      check(t, expected);
    }
  }

  @Test
  void evictionWithoutSpace_neverFailsAChangeHalfWay_acrossManyFillAndFreeRounds() throws IOException {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    TableHarness h = harness();
    Random rnd = new Random(7);
    Map<String, byte[]> expected = new LinkedHashMap<>();
    try (BPlusTable t = h.open(fs)) {
      for (int round = 0; round < 30; round++) {
        fs.spaceQuota(dir, used(fs) + rnd.nextInt(64 << 10), NoSpaceAt.WRITE);
        List<Object[]> waiting = new ArrayList<>();
        boolean full = false;
        for (int i = 0; i < 5000 && !full; i++) {
          String k = "k" + rnd.nextInt(2000);
          byte[] v = rnd.nextInt(10) == 0 ? null : value(rnd, k + "-" + round + "-" + i);
          try {
            if (v == null) {
              t.remove(b(k), h.lsn.incrementAndGet());
              expected.remove(k);
            } else {
              t.put(b(k), v, 0, h.lsn.incrementAndGet());
              expected.put(k, v);
            }
          } catch (IOException e) {
            assertThat(NoSpace.causedBy(e)).as("round %d: %s is a full disk", round, e).isTrue();
            waiting.add(new Object[] {k, v}); // it waits for space; so do the writes after it
            full = waiting.size() > 5;
          }
          if (rnd.nextInt(200) == 0) {
            try {
              t.flush();
            } catch (IOException e) {
              assertThat(NoSpace.causedBy(e)).as("round %d: %s is a full disk", round, e).isTrue();
            }
          }
        }
        fs.spaceQuota(dir, -1, NoSpaceAt.WRITE);
        t.retryAfterNoSpace();
        for (Object[] w : waiting) {
          if (w[1] == null) {
            expected.remove((String) w[0]);
          } else {
            expected.put((String) w[0], (byte[]) w[1]);
          }
        }
        check(t, expected);
        t.flush();
      }
    }
    try (BPlusTable t = h.open(fs)) {
      check(t, expected);
    }
  }

  /** The bytes the files under {@link #dir} take now. */
  private long used(FaultInjectingFileSystem fs) {
    fs.spaceQuota(dir, Long.MAX_VALUE / 4, NoSpaceAt.WRITE);
    return fs.usedBytes();
  }

  private static void check(BPlusTable t, Map<String, byte[]> expected) throws IOException {
    t.tree().checkInvariants();
    assertThat(t.tree().entryCount()).isEqualTo(expected.size());
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      byte[] got = t.get(b(e.getKey()));
      assertThat(got).as("%s (%s)", e.getKey(), got == null ? "absent" : Arrays.toString(Arrays.copyOf(got, 8)))
          .isEqualTo(e.getValue());
    }
  }
}
