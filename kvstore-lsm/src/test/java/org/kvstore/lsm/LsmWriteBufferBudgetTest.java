package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.TableProperties;

/**
 * The store-wide write buffer budget: many tables written at once hold no more memtable memory
 * than the budget (plus the reporting step of each table), where without it they hold several
 * times as much; every write is still there afterwards.
 */
class LsmWriteBufferBudgetTest {
  private static final int TABLES = 8;
  private static final long MEMTABLE = 2L << 20;
  private static final int VALUE = 1000;
  /** Memtable bytes of one entry beyond its value: key and overheads, generously. */
  private static final int ENTRY_OVERHEAD = 300;
  @TempDir Path dir;

  private static LsmTable open(LsmEngine engine, Path dir, long budget) throws Exception {
    Properties p = new Properties();
    p.put("memtable.size", Long.toString(MEMTABLE));
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), p);
    AtomicLong applied = new AtomicLong();
    return (LsmTable) engine.open(
        new EngineContext(dir, LocalFileSystem.INSTANCE, tp, dir.getFileName().toString(),
            applied::get, 8L << 20, budget));
  }

  private static byte[] key(int table, int i) {
    return String.format("t%d-key%06d", table, i).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Four writers put 1,000-byte values into eight tables round-robin (each table gets about
   * {@code perTable} bytes) while a monitor samples the memtables' total; returns its maximum.
   *
   * <p>The tables are read one after the other, not at one instant, so a sum can count one table's
   * memtable just before its flush freed it and another table's growth into the room it left: a
   * total that never existed. A sample counts only if no table installed a new super version (the
   * only way memory is freed) between its first read and a second pass over all tables; then each
   * table only grew until the second pass began, and the sum is at most the true total then.
   */
  private static long writeAllTables(List<LsmTable> tables, long perTable) throws Exception {
    int perTableKeys = (int) (perTable / VALUE);
    AtomicBoolean done = new AtomicBoolean();
    AtomicLong max = new AtomicLong();
    Thread monitor = new Thread(() -> {
      SuperVersions.MemtableBytes[] first = new SuperVersions.MemtableBytes[tables.size()];
      while (!done.get()) {
        long n = 0;
        for (int i = 0; i < first.length; i++) {
          first[i] = tables.get(i).memtableBytes();
          n += first[i].total();
        }
        boolean unchanged = true;
        for (int i = 0; i < first.length && unchanged; i++) {
          unchanged = tables.get(i).memtableBytes().view() == first[i].view();
        }
        if (unchanged) {
          max.accumulateAndGet(n, Math::max);
        }
        Thread.onSpinWait();
      }
    });
    monitor.start();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        writers.add(pool.submit(() -> {
          byte[] v = new byte[VALUE];
          for (int i = writer; i < perTableKeys; i += 4) {
            for (int t = 0; t < tables.size(); t++) {
              tables.get(t).put(key(t, i), v, 0, 1);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : writers) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      done.set(true);
      monitor.join();
    }
    return max.get();
  }

  @Test
  void manyTablesWrittenAtOnce_stayWithinTheBudget_andKeepEveryWrite() throws Exception {
    long budget = 4L << 20;
    LsmEngine engine = new LsmEngine();
    List<LsmTable> tables = new ArrayList<>();
    for (int t = 0; t < TABLES; t++) {
      tables.add(open(engine, dir.resolve("t" + t), budget));
    }
    try {
      WriteBufferBudget b = engine.writeBufferBudget();
      assertThat(b.limitBytes()).isEqualTo(budget);
      long max = writeAllTables(tables, 3L << 20);
      // Each table reports its growth every step (and may be about two steps past the last
      // evaluation); a write already past its checks lands too.
      long slack = 2 * TABLES * b.checkStep() + 4L * (VALUE + ENTRY_OVERHEAD);
      System.out.printf("write buffer budget: at most %d memtable bytes at once (budget %d, slack %d)%n",
          max, budget, slack);
      assertThat(max).as("most memtable bytes at once").isLessThanOrEqualTo(budget + slack);
      long flushes = 0;
      for (LsmTable t : tables) {
        flushes += t.stats().details().get("flushes");
      }
      // 24 MiB written into 2 MiB memtables under a 4 MiB budget: flushed early and often.
      assertThat(flushes).isGreaterThan(24 / 2);
      for (int t = 0; t < TABLES; t++) {
        for (int i = 0; i < (3 << 20) / VALUE; i += 97) {
          assertThat(tables.get(t).get(key(t, i))).as("table %d key %d", t, i).hasSize(VALUE);
        }
      }
    } finally {
      for (LsmTable t : tables) {
        t.close();
      }
    }
    assertThat(engine.writeBufferBudget().usedBytes()).isZero();
  }

  @Test
  void withoutABudget_theSameWritesHoldSeveralTimesAsMuch() throws Exception {
    LsmEngine engine = new LsmEngine();
    List<LsmTable> tables = new ArrayList<>();
    for (int t = 0; t < TABLES; t++) {
      tables.add(open(engine, dir.resolve("t" + t), 0));
    }
    try {
      long max = writeAllTables(tables, 3L << 20);
      // Each table fills its 2 MiB memtable before a flush: about 8 x 2 MiB at once.
      assertThat(max).isGreaterThan(3 * (4L << 20));
    } finally {
      for (LsmTable t : tables) {
        t.close();
      }
    }
  }
}
