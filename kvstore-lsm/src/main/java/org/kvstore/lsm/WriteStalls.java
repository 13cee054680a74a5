package org.kvstore.lsm;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.kvstore.io.NoSpace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission of a table's writes: refuses them once the table is closed or its background work
 * failed, and holds them (a stall, logged and counted) while the active memtable is full and
 * {@code max.immutable.memtables} immutables wait for their flush, while level 0 has
 * {@code level0.stop.writes.trigger} files, or while the memtables of all the store's lsm tables
 * hold its {@link WriteBufferBudget}. A full memtable with a free immutable slot is switched
 * instead.
 *
 * <p>A stalled writer waits on {@code roomChanged} for at most 50 ms at a time and then looks
 * again, so a wake-up it missed costs one period, never a hang. Whoever may have made room (a flush
 * or compaction installed, a failure latched, the table closed, the budget freed) calls
 * {@link #signalRoom()}.
 *
 * <p>Thread safety: thread-safe. {@code lock} guards only the wait and the signal; it is never held
 * while taking another lock.
 */
final class WriteStalls {
  private static final Logger LOG = LoggerFactory.getLogger(WriteStalls.class);

  private final String tableName;
  private final LsmOptions opt;
  private final WriteBufferBudget budget;
  private final LsmStatistics statistics;
  private final SuperVersions views;
  private final FlushCompactionScheduler scheduler;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition roomChanged = lock.newCondition();

  WriteStalls(
      String tableName, LsmOptions opt, WriteBufferBudget budget, LsmStatistics statistics,
      SuperVersions views, FlushCompactionScheduler scheduler) {
    this.tableName = tableName;
    this.opt = opt;
    this.budget = budget;
    this.statistics = statistics;
    this.views = views;
    this.scheduler = scheduler;
  }

  /**
   * Waits while the write would exceed the memory or level-0 bounds; switches a full memtable when
   * an immutable slot is free.
   *
   * @throws IOException when the table is closed or failed, also while waiting
   */
  void makeRoomForWrite() throws IOException {
    boolean logged = false;
    long stallStart = 0;
    for (;;) {
      checkWritable();
      SuperVersion s = views.current();
      boolean memFull = s.mem().approximateBytes() >= opt.memtableBytes();
      int l0 = s.version().files(0).size();
      // The budget is re-evaluated by a waiting writer too, in case the flush that ended it raced
      // with another evaluation.
      boolean budgetFull = budget.full() && budget.reevaluate();
      if (!memFull && l0 < opt.level0StopWritesTrigger() && !budgetFull) {
        break;
      }
      if (memFull && s.imms().size() < opt.maxImmutableMemtables() && l0 < opt.level0StopWritesTrigger()) {
        views.switchMemtable(SuperVersions.Switch.IF_FULL);
        continue;
      }
      IOException noSpace = scheduler.noSpace();
      if (noSpace != null) {
        // No flush can make room until space is freed: refuse instead of stalling for that long.
        String what = l0 >= opt.level0StopWritesTrigger()
            ? "level 0 holds " + l0 + " files and their compaction" : "its flush";
        throw new IOException("table " + tableName + " has no room for the write: " + what
            + " failed for lack of disk space (" + noSpace.getMessage() + ")", noSpace);
      }
      if (!logged) {
        logged = true;
        stallStart = System.nanoTime();
        statistics.stalls.increment();
        String why =
            l0 >= opt.level0StopWritesTrigger()
                ? l0 + " level-0 files (level0.stop.writes.trigger " + opt.level0StopWritesTrigger() + ")"
                    + (scheduler.compactionDeferred() != null ? "; their compaction waits for disk space" : "")
                : memFull
                    ? s.imms().size() + " immutable memtables wait for their flush (max.immutable.memtables "
                        + opt.maxImmutableMemtables() + ")"
                    : "the memtables of all lsm tables hold the store's write buffer budget ("
                        + budget.limitBytes() + " bytes) until flushes free some";
        LOG.info("table {}: writes stall: {}", tableName, why);
      }
      lock.lock();
      try {
        if (views.current() == s && scheduler.failure() == null && scheduler.noSpace() == null
            && !views.isClosed()) {
          roomChanged.await(50, TimeUnit.MILLISECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while writes stall", e);
      } finally {
        lock.unlock();
      }
    }
    if (logged) {
      statistics.stallNanos.add(System.nanoTime() - stallStart);
    }
  }

  /** Wakes the stalled writers to look again. */
  void signalRoom() {
    lock.lock();
    try {
      roomChanged.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Throws when the table is closed or its background work failed (with that failure as cause). */
  void checkWritable() throws IOException {
    if (views.isClosed()) {
      throw new IOException("table " + tableName + " is closed");
    }
    Throwable e = scheduler.failure();
    if (e != null) {
      throw NoSpace.failedEarlier("table " + tableName + " failed in the background: " + e, e);
    }
  }
}
