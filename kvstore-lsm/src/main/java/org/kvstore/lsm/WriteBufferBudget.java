package org.kvstore.lsm;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.kvstore.lsm.memtable.MemtableArena;

/**
 * The memory the memtables of a store's {@code lsm} tables may hold together, active and waiting
 * for their flush: RocksDB's {@code WriteBufferManager} ({@code db_write_buffer_size}, with
 * {@code allow_stall}). Each table's own {@code memtable.size} bounds one memtable; without a
 * budget, a store whose clients write to many tables at once could hold {@code memtable.size} plus
 * {@code max.immutable.memtables} memtables per table, past the heap with a dozen busy tables.
 *
 * <ul>
 *   <li><b>Early flush.</b> When the active memtables hold 7/8 of the budget, or all memtables hold
 *       the whole budget and the active ones half of it, the largest active memtable that can be
 *       switched (its table has a free immutable slot) is switched and flushed, before it is full.
 *   <li><b>Stall.</b> While all memtables together hold the budget, writes to every table wait (as
 *       a table's writes wait for its own flushes) until flushes bring them under it.
 * </ul>
 *
 * <p>The budget also owns the {@link MemtableArena} the memtables copy their values into: its
 * capacity is the budget plus an eighth (the memtables may pass the budget by a few report steps,
 * and chunks are taken whole); a budget of 0 has no arena (values stay on the heap).
 *
 * <p>Tables report growth every {@link #checkStep()} bytes of their active memtable (the report mark
 * is the memtable's own, so a write that lands in a memtable just switched out cannot push the new
 * one's mark up), so the accounting lags by at most about two steps per table (see {@link #evaluate}). A table whose background work failed is left out:
 * its memtables are never flushed, and its own writes fail anyway.
 *
 * <p>Thread safety: thread-safe. The table set is a concurrent set; evaluations are serialized on
 * this object's monitor and read the tables' own thread-safe size counters; the stall flag is
 * volatile, written only under the monitor.
 */
final class WriteBufferBudget {
  private final long limitBytes;
  private final long checkStep;
  private final Set<LsmTable> tables = ConcurrentHashMap.newKeySet();
  private final MemtableArena arena;
  private volatile boolean full;

  /** A budget of {@code limitBytes}; 0 means none (no early flush, no stall). */
  WriteBufferBudget(long limitBytes) {
    if (limitBytes < 0) {
      throw new IllegalArgumentException("write buffer budget must be >= 0, was " + limitBytes);
    }
    this.limitBytes = limitBytes;
    this.checkStep = Math.max(16L << 10, Math.min(1L << 20, limitBytes / 64));
    this.arena = new MemtableArena(limitBytes + limitBytes / 8);
  }

  /** Where the memtables of the budget's tables keep their values. */
  MemtableArena arena() {
    return arena;
  }

  long limitBytes() {
    return limitBytes;
  }

  /** Bytes of active-memtable growth between two reports of a table. */
  long checkStep() {
    return limitBytes == 0 ? Long.MAX_VALUE : checkStep;
  }

  /** A table opened: its memtables count from now on, and take their chunks from the arena. */
  void register(LsmTable t) {
    arena.opened();
    tables.add(t);
  }

  /**
   * The table closed (its memtables released): its memory is gone, so waiting writers may go on;
   * with the last table the arena lets its free chunks go.
   */
  void unregister(LsmTable t) {
    tables.remove(t);
    arena.closed();
    evaluate();
  }

  /** Whether writes must wait: the memtables hold the whole budget. */
  boolean full() {
    return full;
  }

  /**
   * Evaluates again (a waiting writer does, so that a stall never outlives its cause when two
   * evaluations raced) and says whether writes must still wait.
   */
  boolean reevaluate() {
    evaluate();
    return full;
  }

  /** A table's active memtable grew by a step: switches memtables early if the budget says so. */
  void grew() {
    evaluate();
  }

  /** A table's flush finished (or failed): re-evaluates and wakes the writers waiting on it. */
  void flushed() {
    boolean wasFull = full;
    evaluate();
    if (wasFull) {
      for (LsmTable t : tables) {
        t.signalRoom();
      }
    }
  }

  /** Bytes of all memtables of the budget's tables (for statistics and tests). */
  long usedBytes() {
    long n = 0;
    for (LsmTable t : tables) {
      n += t.memtableBytes().total();
    }
    return n;
  }

  /**
   * Sums the memtables, sets {@link #full}, and switches memtables early as the rules say. A writer
   * that reports a step waits here for any evaluation in progress (which may be switching a
   * memtable) and then makes its own, and the table's other writers reach its next report point
   * and wait too: a table grows at most about two steps past the last evaluation that saw it, so
   * the memtables exceed the budget by at most that per table. Called without any table's locks
   * held; takes a table's fence only through {@link LsmTable#switchMemtable}.
   */
  private synchronized void evaluate() {
    if (limitBytes == 0) {
      return;
    }
    // Switch until the rule is met or nothing can be switched; each switch is one table's.
    for (int round = 0; round < tables.size() + 1; round++) {
      long active = 0;
      long immutable = 0;
      LsmTable largest = null;
      long largestBytes = 0;
      for (LsmTable t : tables) {
        if (t.backgroundError() != null) {
          continue;
        }
        SuperVersions.MemtableBytes m = t.memtableBytes();
        long a = m.active();
        active += a;
        immutable += m.immutable();
        if (a > largestBytes && t.canSwitchMemtable()) {
          largest = t;
          largestBytes = a;
        }
      }
      full = active + immutable >= limitBytes;
      boolean flushEarly =
          active >= limitBytes - limitBytes / 8 || (full && active >= limitBytes / 2);
      if (!flushEarly || largest == null || largest.switchMemtable(SuperVersions.Switch.IF_SLOT_FREE) == null) {
        return;
      }
    }
  }
}
