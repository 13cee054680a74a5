package org.kvstore.bplus;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvstore.Cursor;
import org.kvstore.codec.Crc32c;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.testkit.Seeds;

/**
 * Hammers the optimistic read protocol (docs/format/bplus.md section 6): readers and scanners run
 * against writers that overwrite, insert and remove (so leaves and branches split under them) and
 * against checkpoints, on a buffer far smaller than the table (frames are evicted and reused under
 * optimistic readers) and on one that holds it all (no eviction, only concurrent changes).
 *
 * <p>Checked on every read: a "stable" key (loaded first, overwritten but never removed) is always
 * found; its value is not torn (a CRC32C over the version and the key); the versions one reader
 * sees of a key never go down; a scan returns keys in strictly ascending order and every stable key
 * of its range.
 */
class OptimisticReadStressTest {
  private static final int STABLE = 3_000;
  private static final int WRITERS = 2;

  @TempDir Path dir;

  static byte[] key(int i) {
    return String.format("s%06d", i).getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] extraKey(int i, int j) {
    return String.format("s%06d-x%03d", i, j).getBytes(StandardCharsets.US_ASCII);
  }

  /** {@code version u64 | crc32c(version, key) u32 | filler}: 60 to 400 bytes. */
  static byte[] value(byte[] key, long version) {
    int len = 60 + (int) Math.floorMod(version * 31 + key[6], 340);
    ByteBuffer b = ByteBuffer.allocate(len);
    b.putLong(version);
    b.putInt(crc(key, version));
    while (b.hasRemaining()) {
      b.put((byte) (version + b.position()));
    }
    return b.array();
  }

  static int crc(byte[] key, long version) {
    byte[] covered = ByteBuffer.allocate(8 + key.length).putLong(version).put(key).array();
    return Crc32c.of(covered, 0, covered.length);
  }

  /** The version in {@code v}, checking that it is an untorn value of {@code key}. */
  static long check(byte[] key, byte[] v) {
    assertThat(v).as("value of %s", new String(key, StandardCharsets.US_ASCII)).isNotNull();
    ByteBuffer b = ByteBuffer.wrap(v);
    long version = b.getLong();
    assertThat(b.getInt()).as("crc of %s", new String(key, StandardCharsets.US_ASCII))
        .isEqualTo(crc(key, version));
    assertThat(v).isEqualTo(value(key, version));
    return version;
  }

  @ParameterizedTest(name = "buffer {0}")
  @ValueSource(strings = {"192KiB", "64MiB"})
  @Timeout(120)
  void readersAgainstWritersAndCheckpoints(String bufferSize) throws Exception {
    long seed = Seeds.seed("OptimisticReadStressTest");
    long millis = "default".equals(System.getProperty("kvstore.test.scale", "default")) ? 4_000
        : 60_000;
    TableHarness h = new TableHarness(dir).with("page.size", "4KiB").with("buffer.size", bufferSize);
    try (BPlusTable t = h.open(LocalFileSystem.INSTANCE)) {
      for (int i = 0; i < STABLE; i++) {
        t.put(key(i), value(key(i), 0), 0, 0);
      }
      AtomicLongArray published = new AtomicLongArray(STABLE); // versions acknowledged by writers
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService exec = Executors.newFixedThreadPool(WRITERS + 5);
      List<Future<?>> futures = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int id = w;
        futures.add(exec.submit(() -> {
          Random rnd = new Random(seed + id);
          long[] versions = new long[STABLE];
          while (!stop.get()) {
            int i = rnd.nextInt(STABLE / WRITERS) * WRITERS + id; // this writer's keys only
            switch (rnd.nextInt(4)) {
              case 0, 1 -> {
                long v = ++versions[i];
                t.put(key(i), value(key(i), v), 0, 0);
                published.set(i, v);
              }
              case 2 -> {
                byte[] k = extraKey(i, rnd.nextInt(8));
                t.put(k, value(k, rnd.nextInt(1000)), 0, 0);
              }
              default -> t.remove(extraKey(i, rnd.nextInt(8)), 0);
            }
          }
          return null;
        }));
      }
      for (int r = 0; r < 3; r++) {
        int id = r;
        futures.add(exec.submit(() -> {
          Random rnd = new Random(seed * 31 + id);
          long[] seen = new long[STABLE];
          long reads = 0;
          while (!stop.get()) {
            int i = rnd.nextInt(STABLE);
            long floor = published.get(i);
            long version = check(key(i), t.get(key(i)));
            assertThat(version).as("seed %d key %d: version went down", seed, i)
                .isGreaterThanOrEqualTo(Math.max(seen[i], floor));
            seen[i] = version;
            reads++;
          }
          return reads;
        }));
      }
      futures.add(exec.submit(() -> {
        Random rnd = new Random(seed * 17);
        while (!stop.get()) {
          int first = rnd.nextInt(STABLE);
          int last = Math.min(STABLE - 1, first + rnd.nextInt(400));
          byte[] previous = null;
          int expect = first;
          try (Cursor c = t.newCursor(key(first), key(last + 1))) {
            while (c.next()) {
              byte[] k = c.key();
              if (previous != null) {
                assertThat(Arrays.compareUnsigned(previous, k)).isNegative();
              }
              previous = k;
              if (k.length == 7) { // a stable key: none may be skipped
                assertThat(k).as("seed %d scan from %d", seed, first).isEqualTo(key(expect));
                check(k, c.value());
                expect++;
              }
            }
          }
          assertThat(expect).as("seed %d scan from %d to %d", seed, first, last)
              .isEqualTo(last + 1);
        }
        return null;
      }));
      futures.add(exec.submit(() -> {
        long lsn = 0;
        while (!stop.get()) {
          h.lsn.set(++lsn);
          t.flush();
          Thread.sleep(5);
        }
        return null;
      }));
      Thread.sleep(millis);
      stop.set(true);
      long reads = 0;
      for (Future<?> f : futures) {
        Object r = f.get(60, TimeUnit.SECONDS);
        if (r instanceof Long n) {
          reads += n;
        }
      }
      exec.shutdown();
      assertThat(reads).isPositive();
      t.tree().checkInvariants();
      for (int i = 0; i < STABLE; i++) {
        assertThat(check(key(i), t.get(key(i)))).isEqualTo(published.get(i));
      }
      if (bufferSize.equals("192KiB")) {
        assertThat(t.pool().stats().evictions()).as("the small buffer evicts").isPositive();
      }
    }
  }
}
