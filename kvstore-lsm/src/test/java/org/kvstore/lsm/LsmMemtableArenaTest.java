package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.Cursor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.lsm.memtable.MemtableArena;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.TableProperties;
import org.kvstore.testkit.Seeds;

/**
 * Memtable values in the write buffer budget's arena, through tables: its direct memory stays
 * within its capacity and flat over 100 memtable flushes (flushed memtables give their chunks to the
 * next ones), every read right, reported per table, and gone when the last table closes; point reads
 * and cursors racing flushes that recycle the memtables they read see every acknowledged write.
 */
class LsmMemtableArenaTest {
  /** The store's write buffer budget: the arena holds it and an eighth. */
  private static final long BUDGET = 4L << 20;

  @TempDir Path dir;

  private static EngineTable open(LsmEngine engine, Path dir, String name) throws Exception {
    Properties p = new Properties();
    p.put("memtable.size", "256k");
    p.put("level0.compaction.trigger", "4");
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), p);
    AtomicLong applied = new AtomicLong();
    return engine.open(new EngineContext(dir.resolve(name), LocalFileSystem.INSTANCE, tp, name, applied::get,
        8L << 20, BUDGET));
  }

  private static byte[] key(int i) {
    return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
  }

  /** Key {@code i}'s value of round {@code round}: both in its first bytes, then a pattern of both. */
  private static byte[] value(int i, int round) {
    byte[] v = new byte[300];
    ByteBuffer b = ByteBuffer.wrap(v).putInt(i).putInt(round);
    while (b.hasRemaining()) {
      b.put((byte) (i * 31 + round * 7 + b.position()));
    }
    return v;
  }

  /** The round a value was written in, after checking that it is key {@code i}'s value of it. */
  private static int roundOf(int i, byte[] v) {
    ByteBuffer b = ByteBuffer.wrap(v);
    int k = b.getInt();
    int round = b.getInt();
    if (k != i || !Arrays.equals(v, value(k, round))) {
      throw new AssertionError("key " + i + " read bytes that are not one of its values: key " + k + " round "
          + round + " " + Arrays.toString(Arrays.copyOf(v, 24)));
    }
    return round;
  }

  @Test
  void hundredFlushes_arenaMemoryBoundedAndFlat_readsRight_goneAtClose() throws Exception {
    LsmEngine engine = new LsmEngine();
    int keys = 3_000;
    try (EngineTable a = open(engine, dir, "a"); EngineTable b = open(engine, dir, "b")) {
      MemtableArena arena = engine.writeBufferBudget().arena();
      assertThat(arena.capacityBytes()).isEqualTo(BUDGET + BUDGET / 8);
      long seq = 0;
      long afterWarmUp = -1;
      long flushes = 0;
      for (int round = 0; flushes < 100; round++) {
        for (int i = 0; i < keys; i++) {
          EngineTable t = i % 2 == 0 ? a : b;
          t.put(key(i), value(i, round), 0, ++seq);
          assertThat(arena.allocatedBytes()).isLessThanOrEqualTo(arena.capacityBytes());
        }
        flushes = a.stats().details().get("flushes") + b.stats().details().get("flushes");
        if (round == 3) {
          afterWarmUp = arena.allocatedBytes();
        }
        if (afterWarmUp >= 0) {
          // Flushed memtables hand their chunks on: no growth once a few rounds went through.
          assertThat(arena.allocatedBytes()).as("round %d", round).isLessThanOrEqualTo(
              afterWarmUp + 2L * arena.chunkBytes() * 4);
        }
        for (int i = 0; i < keys; i += 37) {
          EngineTable t = i % 2 == 0 ? a : b;
          assertThat(roundOf(i, t.get(key(i)))).as("key %d", i).isEqualTo(round);
        }
      }
      assertThat(a.stats().details().get("memtable.arena.bytes")).isPositive();
      assertThat(a.stats().details().get("memtable.arena.bytes") + b.stats().details().get("memtable.arena.bytes"))
          .isLessThanOrEqualTo(arena.allocatedBytes());
      a.close();
      assertThat(arena.allocatedBytes()).as("b still open").isPositive();
      assertThat(roundOf(1, b.get(key(1)))).isPositive();
      b.close();
      assertThat(arena.allocatedBytes()).as("the last table closed").isZero();
    }
  }

  /**
   * Writers overwrite keys round after round through memtables flushed one after the other (their
   * chunks reused at once); readers check that each point read and each cursor returns, for every
   * key, a whole value of that key from a round at least as new as the last one acknowledged
   * before the read started.
   */
  @Test
  void readsRacingFlushesThatRecycleMemtables_seeEveryAcknowledgedWrite() throws Exception {
    long seed = Seeds.seed("LsmMemtableArenaTest.readsRacingFlushes");
    LsmEngine engine = new LsmEngine();
    int keys = 1_000;
    AtomicIntegerArray acked = new AtomicIntegerArray(keys);
    try (EngineTable t = open(engine, dir, "t")) {
      long seq = 0;
      for (int i = 0; i < keys; i++) {
        t.put(key(i), value(i, 0), 0, ++seq);
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      AtomicLong scans = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        List<Future<?>> readers = new ArrayList<>();
        readers.add(pool.submit(() -> {
          Random rnd = new Random(seed);
          while (!stop.get()) {
            int i = rnd.nextInt(keys);
            int floor = acked.get(i);
            byte[] v = rnd.nextBoolean() ? t.get(key(i)) : t.getReadOnly(key(i));
            int round = roundOf(i, v);
            if (round < floor) {
              throw new AssertionError("seed " + seed + ": key " + i + " read round " + round + " after round "
                  + floor + " was acknowledged");
            }
            reads.incrementAndGet();
          }
          return null;
        }));
        readers.add(pool.submit(() -> {
          while (!stop.get()) {
            int[] floors = new int[keys];
            for (int i = 0; i < keys; i++) {
              floors[i] = acked.get(i);
            }
            int n = 0;
            try (Cursor c = t.newCursor(null, null)) {
              for (; c.next(); n++) {
                int i = ByteBuffer.wrap(c.value()).getInt();
                assertThat(c.key()).isEqualTo(key(i));
                if (roundOf(i, c.value()) < floors[i]) {
                  throw new AssertionError("scan: key " + i + " older than round " + floors[i]);
                }
              }
            }
            assertThat(n).isEqualTo(keys);
            scans.incrementAndGet();
          }
          return null;
        }));
        for (int round = 1; round <= 40; round++) {
          for (int i = 0; i < keys; i++) {
            t.put(key(i), value(i, round), 0, ++seq);
            acked.set(i, round);
          }
        }
        stop.set(true);
        for (Future<?> f : readers) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        stop.set(true);
        pool.shutdownNow();
      }
      assertThat(t.stats().details().get("flushes")).as("memtables flushed under the readers").isGreaterThan(20);
      assertThat(reads.get()).isPositive();
      assertThat(scans.get()).isPositive();
    }
  }

  /**
   * A read that took its view before a flush, and reads its memtable after the flush recycled it,
   * reads again from the current view (where the flushed SSTable is): it never returns the retry
   * marker or another memtable's bytes.
   */
  @Test
  void aReadWhoseMemtableWasRecycled_readsAgainFromTheCurrentView() throws Exception {
    LsmEngine engine = new LsmEngine();
    try (EngineTable t = open(engine, dir, "t")) {
      LsmTable table = (LsmTable) t;
      t.put(key(1), value(1, 1), 0, 1);
      SuperVersion seen = table.view();
      t.flush(); // the memtable's chunks go back to the arena
      t.put(key(2), value(2, 9), 0, 2); // and the next memtable writes into them
      assertThat(roundOf(1, table.readFrom(seen, key(1)))).isEqualTo(1);
      assertThat(table.readFrom(seen, key(3))).isNull();
    }
  }
}
