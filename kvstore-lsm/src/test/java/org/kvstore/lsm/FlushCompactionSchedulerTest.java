package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kvstore.lsm.memtable.MemTable;

/**
 * The scheduler against a fake table ({@link FlushCompactionScheduler.Table}): flush order,
 * compaction rounds, the failure latch and shutdown, without files.
 */
class FlushCompactionSchedulerTest {
  /** Immutable memtables newest first, as in a super version; flushes drop theirs. */
  private static final class FakeTable implements FlushCompactionScheduler.Table {
    final List<FrozenMemTable> imms = Collections.synchronizedList(new ArrayList<>());
    final List<FrozenMemTable> flushed = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger dueCompactions = new AtomicInteger();
    final AtomicInteger compactions = new AtomicInteger();
    final AtomicInteger failedCalls = new AtomicInteger();
    /** Counted down by each flush before it does anything, so a test can see it is running. */
    volatile CountDownLatch flushStarted = new CountDownLatch(0);
    /** Awaited by each flush before it does anything, so a test can hold it. */
    volatile CountDownLatch flushGate = new CountDownLatch(0);
    volatile IOException flushFailure;
    volatile IOException compactionFailure;
    /** Whether a compaction waits for its abort instead of finishing. */
    volatile boolean compactionBlocksUntilAborted;
    /** How long each compaction takes before it does anything, so that callers must wait for it. */
    volatile long compactionMillis;

    FrozenMemTable freeze() {
      FrozenMemTable f = new FrozenMemTable(new MemTable(), 0, 0, new CompletableFuture<>());
      imms.add(0, f);
      return f;
    }

    @Override
    public FrozenMemTable oldestImmutable() {
      synchronized (imms) {
        return imms.isEmpty() ? null : imms.get(imms.size() - 1);
      }
    }

    @Override
    public void flushMemtable(FrozenMemTable f) throws IOException {
      flushStarted.countDown();
      try {
        flushGate.await();
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
      if (flushFailure != null) {
        throw flushFailure;
      }
      flushed.add(f);
      imms.remove(f);
    }

    @Override
    public boolean compactOnce(BooleanSupplier aborted) throws IOException {
      if (compactionMillis > 0) {
        try {
          Thread.sleep(compactionMillis);
        } catch (InterruptedException e) {
          throw new IOException(e);
        }
      }
      if (compactionBlocksUntilAborted) {
        while (!aborted.getAsBoolean()) {
          Thread.onSpinWait();
        }
        throw new IOException("aborted");
      }
      if (compactionFailure != null) {
        throw compactionFailure;
      }
      if (dueCompactions.get() == 0) {
        return false;
      }
      dueCompactions.decrementAndGet();
      compactions.incrementAndGet();
      return true;
    }

    @Override
    public void backgroundFailed() {
      failedCalls.incrementAndGet();
    }

    final List<IOException> outOfSpace = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void backgroundOutOfSpace(IOException cause) {
      outOfSpace.add(cause);
    }

    volatile boolean level0Full;
    final AtomicInteger deferrals = new AtomicInteger();

    @Override
    public boolean level0Full() {
      return level0Full;
    }

    @Override
    public void compactionDeferred(IOException cause) {
      deferrals.incrementAndGet();
    }
  }

  private final FakeTable table = new FakeTable();
  private final FlushCompactionScheduler scheduler = new FlushCompactionScheduler("fake", table);

  @AfterEach
  void shutDown() {
    scheduler.shutdown();
  }

  private static Throwable failureOf(FrozenMemTable f) {
    assertThatThrownBy(() -> f.flushed().get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    return f.flushed().handle((v, e) -> e).join();
  }

  @Test
  void scheduleFlush_twoWaiting_flushesOldestFirst() throws Exception {
    table.flushGate = new CountDownLatch(1);
    FrozenMemTable older = table.freeze();
    FrozenMemTable newer = table.freeze();
    scheduler.scheduleFlush(newer);
    scheduler.scheduleFlush(older);
    table.flushGate.countDown();

    older.flushed().get(10, TimeUnit.SECONDS);
    newer.flushed().get(10, TimeUnit.SECONDS);
    assertThat(table.flushed).containsExactly(older, newer);
    assertThat(scheduler.failure()).isNull();
  }

  @Test
  void scheduleFlush_afterFlush_runsCompactionsWhileDue() throws Exception {
    table.dueCompactions.set(3);
    FrozenMemTable f = table.freeze();
    scheduler.scheduleFlush(f);
    f.flushed().get(10, TimeUnit.SECONDS);

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (table.compactions.get() < 3 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(table.compactions.get()).isEqualTo(3);
    assertThat(table.dueCompactions.get()).isZero();
  }

  @Test
  void scheduleFlush_flushFails_latchesTheFailure() throws Exception {
    IOException boom = new IOException("disk full");
    table.flushFailure = boom;
    table.dueCompactions.set(1);
    FrozenMemTable f = table.freeze();
    scheduler.scheduleFlush(f);

    assertThat(failureOf(f)).isSameAs(boom);
    assertThat(scheduler.failure()).isSameAs(boom);
    assertThat(table.failedCalls.get()).isEqualTo(1);
    scheduler.maybeScheduleCompaction();
    Thread.sleep(50);
    assertThat(table.compactions.get()).as("no compaction after a latched failure").isZero();
  }

  @Test
  void scheduleFlush_failureWhileTwoWait_failsBothFlushesWithTheCause() throws Exception {
    IOException boom = new IOException("disk full");
    table.flushFailure = boom;
    table.flushStarted = new CountDownLatch(1);
    table.flushGate = new CountDownLatch(1);
    FrozenMemTable first = table.freeze();
    scheduler.scheduleFlush(first);
    table.flushStarted.await(10, TimeUnit.SECONDS);
    FrozenMemTable second = table.freeze(); // switched while the first flush runs
    scheduler.scheduleFlush(second);
    table.flushGate.countDown();

    assertThat(failureOf(first)).isSameAs(boom);
    assertThat(failureOf(second)).as("a flush queued behind the failed one").isSameAs(boom);
    assertThat(table.flushed).isEmpty();
  }

  @Test
  void maybeScheduleCompaction_compactionFails_latchesTheFailure() throws Exception {
    IOException boom = new IOException("bad block");
    table.compactionFailure = boom;
    scheduler.maybeScheduleCompaction();

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (table.failedCalls.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(scheduler.failure()).isSameAs(boom);
    assertThat(table.failedCalls.get()).isEqualTo(1);

    FrozenMemTable f = table.freeze();
    scheduler.scheduleFlush(f);
    assertThat(failureOf(f)).isSameAs(boom);
    assertThat(table.flushed).isEmpty();
  }

  @Test
  void shutdown_compactionRunning_abortsItWithoutLatching() throws Exception {
    table.compactionBlocksUntilAborted = true;
    scheduler.maybeScheduleCompaction();
    Thread.sleep(20);

    scheduler.shutdown();
    assertThat(scheduler.failure()).isNull();
    assertThat(table.failedCalls.get()).isZero();
  }

  @Test
  void scheduleFlush_afterShutdown_failsTheFlush() throws Exception {
    scheduler.shutdown();
    FrozenMemTable f = table.freeze();
    scheduler.scheduleFlush(f);

    assertThat(failureOf(f)).isInstanceOf(IOException.class).hasMessageContaining("closed");
  }

  @Test
  void scheduleFlush_flushOutOfSpace_keepsTheMemtableAndResumesOnRetry() throws Exception {
    IOException full = new IOException("No space left on device (injected) writing 000007.sst");
    table.flushFailure = full;
    FrozenMemTable f = table.freeze();
    scheduler.scheduleFlush(f);
    assertThat(failureOf(f)).isSameAs(full);
    assertThat(scheduler.failure()).as("not latched for good").isNull();
    assertThat(scheduler.noSpace()).isSameAs(full);
    assertThat(table.outOfSpace).containsExactly(full);
    assertThat(table.imms).containsExactly(f);

    assertThatThrownBy(scheduler::retryAfterNoSpace).isSameAs(full);
    table.flushFailure = null;
    scheduler.retryAfterNoSpace();

    assertThat(table.flushed).containsExactly(f);
    assertThat(scheduler.noSpace()).isNull();
    assertThat(table.failedCalls.get()).isZero();
  }

  @Test
  void maybeScheduleCompaction_compactionOutOfSpaceLevel0HasRoom_deferredWithoutStoppingWritesAndRetriedByItself()
      throws Exception {
    table.compactionFailure = new IOException("No space left on device");
    table.dueCompactions.set(1);
    scheduler.maybeScheduleCompaction();
    for (int i = 0; i < 400 && table.deferrals.get() < 2; i++) {
      Thread.sleep(5);
    }
    assertThat(table.deferrals.get()).as("tried again after its back-off").isGreaterThanOrEqualTo(2);
    assertThat(scheduler.compactionDeferred()).isNotNull();
    assertThat(scheduler.noSpace()).as("writes and flushes go on").isNull();
    assertThat(table.outOfSpace).as("the store is not told the disk is full").isEmpty();
    assertThat(scheduler.failure()).isNull();

    // Flushes still run while the compaction waits.
    FrozenMemTable f = table.freeze();
    scheduler.scheduleFlush(f);
    f.flushed().get(10, TimeUnit.SECONDS);

    table.compactionFailure = null;
    for (int i = 0; i < 2000 && table.compactions.get() == 0; i++) {
      Thread.sleep(5);
    }
    assertThat(table.compactions.get()).as("ran by itself once space returned").isEqualTo(1);
    assertThat(scheduler.compactionDeferred()).isNull();
    assertThat(table.outOfSpace).isEmpty();
  }

  @Test
  void maybeScheduleCompaction_compactionOutOfSpaceLevel0Full_stopsWritesUntilRetrySucceeds() throws Exception {
    IOException full = new IOException("No space left on device");
    table.compactionFailure = full;
    table.level0Full = true;
    table.dueCompactions.set(1);
    scheduler.maybeScheduleCompaction();
    // The scheduler notes the failure, then tells the table: wait for both.
    for (int i = 0; i < 200 && (scheduler.noSpace() == null || table.outOfSpace.isEmpty()); i++) {
      Thread.sleep(5);
    }
    assertThat(scheduler.noSpace()).isSameAs(full);
    assertThat(table.outOfSpace).containsExactly(full);
    assertThat(scheduler.failure()).isNull();

    assertThatThrownBy(scheduler::retryAfterNoSpace).isSameAs(full);
    table.compactionFailure = null;
    scheduler.retryAfterNoSpace();
    assertThat(table.compactions.get()).isEqualTo(1);
    assertThat(scheduler.noSpace()).isNull();
    assertThat(scheduler.compactionDeferred()).isNull();
  }

  @Test
  void retryAfterNoSpace_flushSucceedsCompactionStillOutOfSpaceLevel0HasRoom_retrySucceeds() throws Exception {
    IOException full = new IOException("No space left on device (injected) writing 000009.sst");
    table.flushFailure = full;
    FrozenMemTable f = table.freeze();
    scheduler.scheduleFlush(f);
    assertThat(failureOf(f)).isSameAs(full);
    assertThat(scheduler.noSpace()).isSameAs(full);

    table.flushFailure = null;
    table.compactionFailure = new IOException("No space left on device");
    table.dueCompactions.set(1);
    // A slow compaction: the one the retry's flush schedules is still running when the retry
    // asks for its own, and the retry must wait for it rather than return early.
    table.compactionMillis = 200;
    scheduler.retryAfterNoSpace();

    assertThat(table.flushed).containsExactly(f);
    assertThat(scheduler.noSpace()).as("writes resume: level 0 has room").isNull();
    assertThat(scheduler.compactionDeferred()).isNotNull();
  }
}
