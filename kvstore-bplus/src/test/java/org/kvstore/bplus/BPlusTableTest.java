package org.kvstore.bplus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.CorruptionException;
import org.kvstore.bplus.page.PageFormat;
import org.kvstore.bplus.page.PageType;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.io.StorageFile;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.TestScale;

/** Engine-level tests of a table: randomized with invariants, overflow, free lists, CRC, stats. */
class BPlusTableTest {
  @TempDir Path dir;

  private TableHarness small() {
    return new TableHarness(dir).with("page.size", "4KiB").with("buffer.size", "128KiB");
  }

  @Test
  void randomizedOps_matchModelAndKeepInvariants_acrossCheckpointsAndReopens() throws IOException {
    long seed = Seeds.seed("BPlusTableTest.randomized");
    Random rnd = new Random(seed);
    TableHarness h = small();
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    BPlusTable t = h.open(LocalFileSystem.INSTANCE);
    int ops = TestScale.current().scaled(20_000);
    try {
      for (int op = 0; op < ops; op++) {
        byte[] key = randomKey(rnd);
        int kind = rnd.nextInt(100);
        if (kind < 55) {
          byte[] v = new byte[rnd.nextInt(30) == 0 ? rnd.nextInt(20_000) : rnd.nextInt(300)];
          rnd.nextBytes(v);
          t.put(key, v, 0, op);
          model.put(key, v);
        } else if (kind < 80) {
          t.remove(key, op);
          model.remove(key);
        } else {
          assertThat(t.get(key)).isEqualTo(model.get(key));
        }
        if (op % 2000 == 1999) {
          t.tree().checkInvariants();
          h.lsn.set(op);
          t.flush();
          if (rnd.nextBoolean()) {
            t.close();
            t = h.open(LocalFileSystem.INSTANCE);
            assertThat(t.persistedLsn()).isEqualTo(op);
          }
        }
      }
      t.tree().checkInvariants();
      CheckpointCrashTest.assertEqual(CheckpointCrashTest.scan(t), model);
      assertThat(t.stats().entryEstimate()).isEqualTo(model.size());
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    } finally {
      t.close();
    }
  }

  /** Short keys, and now and then keys too long to store inline (KEY_OVERFLOW). */
  private static byte[] randomKey(Random rnd) {
    int n = rnd.nextInt(3000);
    if (rnd.nextInt(50) == 0) {
      byte[] k = new byte[1500 + rnd.nextInt(4000)];
      Arrays.fill(k, (byte) 'L');
      ByteBuffer.wrap(k, k.length - 4, 4).putInt(n % 50);
      return k;
    }
    return ("k" + n).getBytes();
  }

  @Test
  void overflowValues_areFreedAndTheirPagesReused() throws IOException {
    TableHarness h = small();
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      byte[] big = new byte[1 << 20];
      new Random(1).nextBytes(big);
      long pagesBefore = t.stats().details().get("pages");
      t.put("big".getBytes(), big, 0, 1);
      long pagesWith = t.stats().details().get("pages");
      assertThat(pagesWith - pagesBefore).isGreaterThanOrEqualTo((1 << 20) / 4096);
      assertThat(t.get("big".getBytes())).isEqualTo(big);
      h.lsn.set(1);
      t.flush();
      long slotsAfterFirst = t.stats().details().get("file.slots");
      t.remove("big".getBytes(), 2);
      assertThat(t.stats().details().get("pages")).isEqualTo(pagesBefore);
      h.lsn.set(2);
      t.flush();
      // The freed pages (logical ids and, once checkpoint 2 no longer needs them, slots) are reused.
      for (int round = 0; round < 3; round++) {
        t.put("big".getBytes(), big, 0, 3 + round);
        t.remove("big".getBytes(), 3 + round);
        h.lsn.set(3 + round);
        t.flush();
      }
      t.put("big".getBytes(), big, 0, 10);
      h.lsn.set(10);
      t.flush();
      assertThat(t.stats().details().get("pages")).isEqualTo(pagesWith);
      // Two checkpoints of the value may be alive at once (shadow paging), never more.
      assertThat(t.stats().details().get("file.slots")).isLessThanOrEqualTo(2 * slotsAfterFirst + 8);
      t.tree().checkInvariants();
    }
  }

  @Test
  void hugeValue_of100MiB_roundTripsThroughASmallBuffer() throws IOException {
    int size = TestScale.current().isLongRun() ? 100 << 20 : 24 << 20;
    TableHarness h = new TableHarness(dir).with("buffer.size", "1MiB");
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      byte[] v = new byte[size];
      new Random(7).nextBytes(v);
      t.put("huge".getBytes(), v, 0, 1);
      h.lsn.set(1);
      t.flush();
      assertThat(t.pool().stats().frames()).isLessThanOrEqualTo(128);
      assertThat(Arrays.equals(t.get("huge".getBytes()), v)).isTrue();
    }
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      byte[] got = t.get("huge".getBytes());
      assertThat(got).hasSize(size);
      byte[] v = new byte[size];
      new Random(7).nextBytes(v);
      assertThat(Arrays.equals(got, v)).isTrue();
    }
  }

  @Test
  void tableFourTimesTheBuffer_works() throws IOException {
    TableHarness h = new TableHarness(dir).with("page.size", "4KiB").with("buffer.size", "256KiB");
    Random rnd = new Random(3);
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      int n = 4 * (256 << 10) / 520 * 2; // about 8x the buffer in raw bytes
      for (int i = 0; i < n; i++) {
        byte[] v = new byte[500];
        rnd.nextBytes(v);
        t.put(String.format("key%08d", (i * 7919) % n).getBytes(), v, 0, i);
      }
      long fileBytes = t.stats().bytesOnDisk();
      h.lsn.set(n);
      t.flush();
      assertThat(t.stats().bytesOnDisk()).isGreaterThan(4L * (256 << 10));
      for (int i = 0; i < n; i += 13) {
        assertThat(t.get(String.format("key%08d", i).getBytes())).hasSize(500);
      }
      var s = t.stats().details();
      assertThat(s.get("buffer.resident.pages")).isLessThanOrEqualTo(64L);
      assertThat(s.get("buffer.evictions")).isPositive();
      assertThat(s.get("buffer.hit.rate.permille")).isBetween(1L, 999L);
      assertThat(s.get("tree.height")).isGreaterThanOrEqualTo(2L);
      assertThat(s).containsKeys("pages", "buffer.dirty.pages");
      assertThat(fileBytes).isPositive();
      t.tree().checkInvariants();
    }
  }

  @Test
  void flippedBitOnDisk_failsTheReadNamingFileAndPage_neverAWrongValue() throws IOException {
    TableHarness h = small();
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      for (int i = 0; i < 2000; i++) {
        t.put(("key" + i).getBytes(), ("value" + i).getBytes(), 0, i);
      }
      h.lsn.set(1);
      t.flush();
    }
    Path file = dir.resolve(BPlusTable.FILE_NAME);
    java.util.Set<Long> damaged = new java.util.HashSet<>();
    try (StorageFile f = LocalFileSystem.INSTANCE.open(file, FileSystem.OpenMode.READ_WRITE)) {
      // Flip one bit in every leaf image in the file (current and superseded ones).
      byte[] page = new byte[4096];
      for (long s = 2; s < f.size() / 4096; s++) {
        f.readFully(ByteBuffer.wrap(page), s * 4096L);
        if (PageFormat.type(page) == PageType.LEAF && s % 3 == 0) {
          page[3000] ^= 0x04;
          f.writeFully(ByteBuffer.wrap(page), s * 4096L);
          damaged.add(s);
        }
      }
    }
    assertThat(damaged).isNotEmpty();
    int failures = 0;
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      for (int i = 0; i < 2000; i++) {
        try {
          assertThat(t.get(("key" + i).getBytes())).isEqualTo(("value" + i).getBytes());
        } catch (CorruptionException e) {
          assertThat(e.getMessage()).contains(BPlusTable.FILE_NAME).containsPattern("page \\d+ \\(slot \\d+\\)")
              .contains("checksum mismatch");
          assertThat(damaged).contains(e.offset() / 4096);
          failures++;
        }
      }
    }
    assertThat(failures).isPositive();
  }

  @Test
  void bothMetaPagesDamaged_openFails() throws IOException {
    TableHarness h = small();
    h.open(LocalFileSystem.INSTANCE).close();
    try (StorageFile f = LocalFileSystem.INSTANCE.open(dir.resolve(BPlusTable.FILE_NAME),
        FileSystem.OpenMode.READ_WRITE)) {
      f.writeFully(ByteBuffer.wrap(new byte[] {1, 2, 3}), 100);
      f.writeFully(ByteBuffer.wrap(new byte[] {1, 2, 3}), 4096 + 100);
    }
    assertThatThrownBy(() -> h.open(LocalFileSystem.INSTANCE))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("no valid meta page");
  }

  @Test
  void backup_opensAtTheDurableCheckpoint() throws IOException {
    TableHarness h = small();
    Path copy = java.nio.file.Files.createDirectories(dir.resolve("backup"));
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      for (int i = 0; i < 500; i++) {
        t.put(("k" + i).getBytes(), ("v" + i).getBytes(), 0, i);
      }
      h.lsn.set(500);
      t.flush();
      t.put("after".getBytes(), "checkpoint".getBytes(), 0, 501);
      t.backup(copy);
    }
    try (BPlusTable b = new TableHarness(copy).with("page.size", "4KiB")
        .with("buffer.size", "128KiB").open(LocalFileSystem.INSTANCE)) {
      assertThat(b.persistedLsn()).isEqualTo(500);
      assertThat(b.get("k499".getBytes())).isEqualTo("v499".getBytes());
      assertThat(b.get("after".getBytes())).isNull();
      b.tree().checkInvariants();
    }
  }

  @Test
  void badPageSize_isRejectedNamingTheProperty() {
    TableHarness h = new TableHarness(dir).with("page.size", "12KiB");
    assertThatThrownBy(() -> h.open(LocalFileSystem.INSTANCE))
        .hasMessageContaining("page.size")
        .hasMessageContaining("power of two");
  }
}
