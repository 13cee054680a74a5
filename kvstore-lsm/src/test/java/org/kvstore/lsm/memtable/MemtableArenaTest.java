package org.kvstore.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.testkit.Seeds;

/**
 * The memtable arena: values placed in chunks and read back as copies, chunks going back to the
 * arena when the last reference on their memtable goes (the table's after its flush, a cursor's),
 * reused by the next memtables without more direct memory, the capacity bound with the heap as the
 * fallback, chunks of a closed table forgotten, and point reads that race a recycle never returning
 * another memtable's bytes.
 */
class MemtableArenaTest {
  private static final Clock CLOCK = Clock.systemUTC();
  private static final int CHUNK = 64 << 10;

  private final List<MemtableArena> arenas = new ArrayList<>();

  private MemtableArena arena(long capacity) {
    MemtableArena a = new MemtableArena(capacity);
    a.opened();
    arenas.add(a);
    return a;
  }

  @AfterEach
  void closeArenas() {
    for (MemtableArena a : arenas) {
      a.closed();
    }
  }

  private static byte[] key(int i) {
    return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
  }

  /** A value of {@code len} bytes, each {@code (tag + i) & 0x7f}: any foreign byte shows. */
  private static byte[] value(int tag, int len) {
    byte[] v = new byte[len];
    for (int i = 0; i < len; i++) {
      v[i] = (byte) ((tag + i) & 0x7f);
    }
    return v;
  }

  /** Writes {@code n} values of {@code len} bytes tagged {@code tag + i}; returns the next seq. */
  private static long fill(MemTable m, int n, int len, int tag, long seq) {
    for (int i = 0; i < n; i++) {
      m.add(key(i), seq++, ValueKind.PUT, value(tag + i, len), 0, org.kvstore.Entry.NO_EXPIRY,
          MemTable.KEEP_ALL_VERSIONS);
    }
    return seq;
  }

  @Test
  void chunkSize_isA256thOfTheCapacity_between64KiBAnd1MiB() {
    assertThat(new MemtableArena(1L << 20).chunkBytes()).isEqualTo(64 << 10);
    assertThat(new MemtableArena(64L << 20).chunkBytes()).isEqualTo(256 << 10);
    assertThat(new MemtableArena(4L << 30).chunkBytes()).isEqualTo(1 << 20);
    assertThatThrownBy(() -> new MemtableArena(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }

  @Test
  void values_areCopiedIn_andReadBackAsCopies_bigOnesStayOnTheHeap() {
    MemtableArena a = arena(16L * CHUNK);
    MemTable m = new MemTable(a);
    byte[] small = value(1, 500);
    byte[] big = value(2, a.chunkBytes() / 8 + 1);
    m.add(key(1), 1, ValueKind.PUT, small);
    m.add(key(2), 2, ValueKind.PUT, big);
    small[0] = 99; // the memtable copied it: changing the caller's array changes nothing
    assertThat(m.latestValue(key(1), CLOCK)).isEqualTo(value(1, 500));
    assertThat(m.latestValue(key(2), CLOCK)).isSameAs(big);
    assertThat(m.latestValue(key(2), CLOCK, true)).isEqualTo(big).isNotSameAs(big);
    assertThat(m.latestEntry(key(1)).value()).isEqualTo(value(1, 500));
    assertThat(m.arenaBytes()).isEqualTo(CHUNK);
    // The arena value counts once in the memtable's size: the node's overhead plus its bytes.
    assertThat(m.approximateBytes()).isGreaterThanOrEqualTo(500 + big.length);
  }

  /** The flush's copy: an arena value into the caller's buffer, a heap value as its own array. */
  @Test
  void cursorValueInto_copiesArenaValuesIntoTheBuffer_andHandsOutHeapArrays() throws Exception {
    MemtableArena a = arena(16L * CHUNK);
    MemTable m = new MemTable(a);
    byte[] big = value(2, a.chunkBytes() / 8 + 1);
    m.add(key(1), 1, ValueKind.PUT, value(1, 300));
    m.add(key(2), 2, ValueKind.PUT, big);
    m.add(key(3), 3, ValueKind.DELETE, null);
    byte[] scratch = new byte[big.length];
    try (MemTable.MemTableCursor c = m.newCursor(Long.MAX_VALUE)) {
      c.seekToFirst();
      assertThat(c.valueLength()).isEqualTo(300);
      assertThat(c.valueInto(scratch)).isSameAs(scratch);
      assertThat(Arrays.copyOf(scratch, 300)).isEqualTo(value(1, 300));
      c.next();
      assertThat(c.valueLength()).isEqualTo(big.length);
      assertThat(c.valueInto(scratch)).isSameAs(big);
      c.next();
      assertThat(c.kind()).isEqualTo(ValueKind.DELETE);
      assertThat(c.valueLength()).isZero();
    }
  }

  @Test
  void overwritesOfOneKey_fillTheMemtable_asTheyFillTheArena() {
    MemtableArena a = arena(64L * CHUNK);
    MemTable m = new MemTable(a);
    for (long seq = 1; seq <= 1_000; seq++) {
      m.add(key(0), seq, ValueKind.PUT, value((int) seq, 1_000), Long.MAX_VALUE); // keeps the newest only
    }
    assertThat(m.entryCount()).isEqualTo(1);
    assertThat(m.approximateBytes()).isGreaterThanOrEqualTo(1_000L * 1_000);
    assertThat(m.arenaBytes()).isLessThanOrEqualTo(m.approximateBytes() + CHUNK);
    assertThat(m.latestValue(key(0), CLOCK)).isEqualTo(value(1_000, 1_000));
  }

  @Test
  void releasedAfterFlush_chunksAreReused_withoutMoreDirectMemory() throws Exception {
    MemtableArena a = arena(64L * CHUNK);
    MemTable first = new MemTable(a);
    fill(first, 1_000, 500, 0, 1);
    long held = first.arenaBytes();
    assertThat(held).isGreaterThan(4L * CHUNK).isEqualTo(a.allocatedBytes());
    first.release(true);
    assertThat(first.arenaBytes()).isZero();
    assertThat(a.allocatedBytes()).isEqualTo(held);
    for (int round = 0; round < 20; round++) {
      MemTable next = new MemTable(a);
      fill(next, 1_000, 500, round, 1);
      assertThat(a.allocatedBytes()).as("round %d", round).isEqualTo(held);
      assertThat(next.latestValue(key(7), CLOCK)).isEqualTo(value(round + 7, 500));
      next.release(true);
    }
  }

  @Test
  void aReadOfARecycledMemtable_saysRetry() {
    MemtableArena a = arena(16L * CHUNK);
    MemTable m = new MemTable(a);
    m.add(key(1), 1, ValueKind.PUT, value(1, 100));
    m.release(true);
    assertThat(m.latestValue(key(1), CLOCK)).isSameAs(MemTable.RETRY);
    assertThat(m.latestEntry(key(1))).isSameAs(Lookup.RETRY);
    assertThat(m.latestValue(key(2), CLOCK)).isNull(); // absence needs no value: still right
    assertThat(m.tryNewCursor(Long.MAX_VALUE)).isNull();
    assertThatThrownBy(() -> m.newCursor(Long.MAX_VALUE)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anOpenCursor_keepsTheChunks_untilItCloses() throws Exception {
    MemtableArena a = arena(64L * CHUNK);
    MemTable m = new MemTable(a);
    fill(m, 500, 500, 0, 1);
    long held = a.allocatedBytes();
    MemTable.MemTableCursor c = m.newCursor(Long.MAX_VALUE);
    m.release(true); // the flush is installed; the cursor still reads
    assertThat(m.latestValue(key(3), CLOCK)).isEqualTo(value(3, 500));
    MemTable other = new MemTable(a);
    fill(other, 500, 500, 1_000, 1); // takes new chunks: the cursor's are not free
    assertThat(a.allocatedBytes()).isEqualTo(2 * held);
    int i = 0;
    for (c.seekToFirst(); c.isValid(); c.next(), i++) {
      assertThat(c.value()).as("key %d", i).isEqualTo(value(i, 500));
    }
    assertThat(i).isEqualTo(500);
    c.close();
    c.close(); // closing twice releases once
    assertThat(m.latestValue(key(3), CLOCK)).isSameAs(MemTable.RETRY);
    MemTable third = new MemTable(a);
    fill(third, 500, 500, 2_000, 1); // the cursor's chunks now
    assertThat(a.allocatedBytes()).isEqualTo(2 * held);
    other.release(true);
    third.release(true);
  }

  @Test
  void atCapacity_valuesStayOnTheHeap_andAllReadBack() {
    MemtableArena a = arena(4L * CHUNK);
    MemTable m = new MemTable(a);
    fill(m, 2_000, 500, 0, 1); // 1 MB of values into a 256 KiB arena
    assertThat(a.allocatedBytes()).isEqualTo(4L * CHUNK);
    assertThat(m.arenaBytes()).isEqualTo(4L * CHUNK);
    for (int i = 0; i < 2_000; i++) {
      assertThat(m.latestValue(key(i), CLOCK)).as("key %d", i).isEqualTo(value(i, 500));
    }
    MemTable starved = new MemTable(a);
    starved.add(key(1), 1, ValueKind.PUT, value(1, 10));
    assertThat(starved.arenaBytes()).isZero();
    assertThat(starved.latestValue(key(1), CLOCK)).isEqualTo(value(1, 10));
  }

  @Test
  void releasedAtClose_chunksAreForgotten_andStillReadable() {
    MemtableArena a = arena(64L * CHUNK);
    MemTable m = new MemTable(a);
    fill(m, 500, 500, 0, 1);
    assertThat(a.allocatedBytes()).isPositive();
    m.release(false);
    assertThat(a.allocatedBytes()).isZero();
    assertThat(m.latestValue(key(9), CLOCK)).isEqualTo(value(9, 500));
    m.release(true); // a flush finishing after the close: the first release counted
    assertThat(m.latestValue(key(9), CLOCK)).isEqualTo(value(9, 500));
    assertThat(m.tryNewCursor(Long.MAX_VALUE)).as("the reference is gone").isNull();
  }

  @Test
  void theLastTableClosed_dropsTheFreeChunks() {
    MemtableArena a = new MemtableArena(64L * CHUNK);
    a.opened();
    a.opened();
    MemTable m = new MemTable(a);
    fill(m, 500, 500, 0, 1);
    m.release(true);
    assertThat(a.allocatedBytes()).isPositive();
    a.closed();
    assertThat(a.allocatedBytes()).as("one table still open").isPositive();
    a.closed();
    assertThat(a.allocatedBytes()).isZero();
  }

  /** Key {@code i}'s value in memtable generation {@code g}: both in its first bytes, then a pattern of both. */
  private static byte[] tagged(int i, int g, int len) {
    byte[] v = value(i * 31 + g * 7, len);
    java.nio.ByteBuffer.wrap(v).putInt(i).putInt(g);
    return v;
  }

  /**
   * Readers copy values from memtables that are released and recycled under them, their chunks
   * rewritten at once by the next memtable with other bytes: every read returns the value that was
   * written to that key (by some generation, whole) or RETRY; never a copy with another memtable's
   * bytes in it, which a read without the recycle check returns.
   */
  @Test
  void pointReadsRacingRecycles_neverReturnAnotherMemtablesBytes() throws Exception {
    long seed = Seeds.seed("MemtableArenaTest.pointReadsRacingRecycles");
    MemtableArena a = arena(8L * CHUNK); // few chunks: each is reused at once
    int keys = 200;
    int len = 1_000;
    AtomicReference<MemTable> published = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong retries = new AtomicLong();
    AtomicLong hits = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        long readerSeed = seed + r;
        readers.add(pool.submit(() -> {
          Random rnd = new Random(readerSeed);
          while (!stop.get()) {
            MemTable m = published.get();
            if (m == null) {
              continue;
            }
            int i = rnd.nextInt(keys);
            byte[] v = m.latestValue(key(i), CLOCK);
            if (v == MemTable.RETRY) {
              retries.incrementAndGet();
              continue;
            }
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(v);
            int readKey = b.getInt();
            int readGen = b.getInt();
            if (readKey != i || !Arrays.equals(v, tagged(readKey, readGen, len))) {
              throw new AssertionError("seed " + readerSeed + ": key " + i + " read bytes of key " + readKey
                  + " generation " + readGen + " that are not that value: " + Arrays.toString(Arrays.copyOf(v, 24)));
            }
            hits.incrementAndGet();
          }
          return null;
        }));
      }
      long start = System.nanoTime();
      for (int g = 1; ; g++) {
        long elapsed = System.nanoTime() - start;
        if (elapsed > TimeUnit.SECONDS.toNanos(2) && (retries.get() > 0 || elapsed > TimeUnit.SECONDS.toNanos(60))) {
          break;
        }
        MemTable m = new MemTable(a);
        for (int i = 0; i < keys; i++) {
          m.add(key(i), i + 1, ValueKind.PUT, tagged(i, g, len));
        }
        published.set(m);
        m.release(true); // its chunks go straight to the next memtable
      }
      stop.set(true);
      for (Future<?> f : readers) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(hits.get()).isPositive();
    assertThat(retries.get()).as("reads that raced a recycle").isPositive();
  }
}
