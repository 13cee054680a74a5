package org.kvstore.lsm;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.kvstore.io.NoSpace;
import org.kvstore.lsm.compaction.CompactionJob;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when a table's flushes and compactions run: one flush thread writing immutable memtables
 * oldest first, and one compaction thread running one compaction at a time (so compactions never
 * conflict, and a flush only ever adds level-0 files). The work itself is the {@link Table}'s.
 *
 * <p>Compactions are looked for after every flush and compaction, and also every
 * {@link #RECLAIM_CHECK_INTERVAL} without either: a file whose entries expire becomes worth
 * compacting by the passing of time alone, with no write that would look
 * (docs/decisions/0026-lsm-expiry.md).
 *
 * <p>Errors: the first failure of either thread is latched ({@link #failure()}): from then on no
 * flush or compaction runs, waiting flushes fail with it as the cause, and the table refuses
 * writes. A compaction aborted by {@link #shutdown()} is not a failure. A failure for lack of disk
 * space ({@link NoSpace}) is not latched: the flush or compaction deleted its own files and left
 * the previous state intact.
 * <ul>
 *   <li>A <b>flush</b> out of space is noted ({@link #noSpace()}) and reported
 *       ({@link Table#backgroundOutOfSpace}); no more background work runs until
 *       {@link #retryAfterNoSpace()}; memtables that wait for their flush meanwhile stay readable.
 *   <li>A <b>compaction</b> out of space is deferred ({@link #compactionDeferred()}), as RocksDB
 *       treats it (a soft error): writes go on, flushes go on adding level-0 files, and the
 *       compaction is tried again after a back-off ({@link #COMPACTION_RETRY_MIN} doubling to
 *       {@link #COMPACTION_RETRY_MAX}). Only when level 0 is full ({@link Table#level0Full()}, where
 *       writes stop until a compaction) does it count as a flush out of space: then nothing but
 *       freed space lets a write through, and the store says so.
 * </ul>
 *
 * <p>Thread safety: thread-safe; {@link #scheduleFlush} and {@link #maybeScheduleCompaction} may be
 * called from any thread. The latch is set under this object's monitor and read without it.
 */
final class FlushCompactionScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(FlushCompactionScheduler.class);

  /**
   * What the scheduler needs from its table. Each method is called on the scheduler's threads: the
   * flush methods on the flush thread, {@link #compactOnce} on the compaction thread.
   *
   * <p>Thread safety: implementations must let a flush and a compaction run at once, and
   * {@link #backgroundFailed} be called from either thread.
   */
  interface Table {
    /** The oldest immutable memtable, waiting for its flush, or {@code null} when none waits. */
    FrozenMemTable oldestImmutable();

    /**
     * Writes {@code f} to a level-0 SSTable, logs it in the manifest with {@code f}'s applied LSN
     * as the persisted LSN, and drops {@code f} from the read view. Does not complete
     * {@code f.flushed()}: the scheduler does.
     */
    void flushMemtable(FrozenMemTable f) throws IOException;

    /**
     * Runs the most urgent due compaction, logs it in the manifest and installs the new version.
     *
     * @param aborted becomes true when the scheduler shuts down; a running compaction then stops
     *     with {@link CompactionJob.AbortedException}
     * @return {@code false} when no compaction was due
     */
    boolean compactOnce(BooleanSupplier aborted) throws IOException;

    /** A flush or compaction failed (the first failure is latched): wake writers waiting for room. */
    void backgroundFailed();

    /** A flush or compaction failed for lack of disk space (not latched): report it, wake writers. */
    void backgroundOutOfSpace(IOException cause);

    /**
     * Whether level 0 holds as many files as stop writes until a compaction: a compaction out of
     * space then stops writes as a flush out of space does. Called from any thread.
     */
    boolean level0Full();

    /** A compaction was deferred for lack of disk space (writes go on): count it. */
    void compactionDeferred(IOException cause);
  }

  /** The first wait before a compaction deferred for lack of space is tried again. */
  static final Duration COMPACTION_RETRY_MIN = Duration.ofMillis(100);

  /** The longest wait before a compaction deferred for lack of space is tried again. */
  static final Duration COMPACTION_RETRY_MAX = Duration.ofSeconds(5);

  /** How often the compaction thread looks for due compactions when nothing else made it look. */
  static final Duration RECLAIM_CHECK_INTERVAL = Duration.ofSeconds(1);

  private final Table table;
  private final String name;
  private final ExecutorService flushThread;
  private final ScheduledExecutorService compactionThread;
  private final AtomicBoolean compactionScheduled = new AtomicBoolean();
  private final BooleanSupplier aborted = () -> this.shuttingDown;
  private volatile boolean shuttingDown;
  private volatile Throwable failure;
  private volatile IOException noSpace;
  /** The compaction failure for lack of space that waits for its back-off, or null. */
  private volatile IOException compactionNoSpace;
  /** When ({@link System#nanoTime}) a deferred compaction may be tried again. */
  private volatile long compactionRetryAtNanos;
  /** The current back-off of a deferred compaction; only the compaction thread touches it. */
  private long compactionBackoffNanos;

  FlushCompactionScheduler(String name, Table table) {
    this.table = table;
    this.name = name;
    this.flushThread = Executors.newSingleThreadExecutor(r -> thread(r, "lsm-flush-" + name));
    this.compactionThread = Executors.newSingleThreadScheduledExecutor(r -> thread(r, "lsm-compact-" + name));
    long every = RECLAIM_CHECK_INTERVAL.toMillis();
    compactionThread.scheduleWithFixedDelay(this::maybeScheduleCompaction, every, every, TimeUnit.MILLISECONDS);
  }

  private static Thread thread(Runnable r, String n) {
    Thread t = new Thread(r, n);
    t.setDaemon(true);
    return t;
  }

  /** The first failure of a flush or compaction, or {@code null}. */
  Throwable failure() {
    return failure;
  }

  /** The flush or compaction failure for lack of space that waits for a retry, or {@code null}. */
  IOException noSpace() {
    return noSpace;
  }

  /**
   * The compaction failure for lack of space that waits for its back-off (writes go on meanwhile),
   * or {@code null}.
   */
  IOException compactionDeferred() {
    return compactionNoSpace;
  }

  /**
   * Retries after a failure for lack of space: flushes every immutable memtable, oldest first, then
   * runs the due compactions, each on its own thread, and waits for them. Returns once the flushes
   * succeeded and level 0 has room (a compaction out of space with level 0 not full is deferred,
   * not a failure of the retry); throws the failure when one failed again (or for good).
   */
  void retryAfterNoSpace() throws IOException {
    if (failure != null) {
      throw NoSpace.failedEarlier("table " + name + " failed in the background: " + failure, failure);
    }
    noSpace = null;
    try {
      flushThread.submit(() -> {
        FrozenMemTable f;
        while (noSpace == null && failure == null && !shuttingDown && (f = table.oldestImmutable()) != null) {
          if (flush(f) != null) {
            break;
          }
        }
      }).get();
      if (noSpace == null && failure == null && !shuttingDown) {
        // Always a run of its own, queued behind any run a flush above scheduled (the compaction
        // thread is single and runs in order), so that the retry waits for the due compactions.
        compactionThread.submit(() -> {
          compactionScheduled.set(true);
          compactWhileDue();
        }).get();
      }
    } catch (RejectedExecutionException e) {
      throw new IOException("table " + name + " is closed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while retrying after a full disk", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException("retry after a full disk failed: " + e.getCause(), e.getCause());
    }
    IOException again = noSpace;
    if (again != null) {
      throw again;
    }
    if (failure != null) {
      throw NoSpace.failedEarlier("table " + name + " failed in the background: " + failure, failure);
    }
    LOG.info("table {}: flushes and compactions run again after a full disk", name);
    maybeScheduleCompaction();
  }

  /**
   * Queues one flush, for {@code frozen}, the memtable just switched out: the flush writes the
   * oldest immutable memtable at the time it runs (switches may queue out of order), so one flush
   * per switch writes them all, oldest first. A flush that cannot run (the scheduler stopped, or a
   * failure is latched) fails {@code frozen}'s future, so that no one waits for it forever.
   */
  void scheduleFlush(FrozenMemTable frozen) {
    try {
      flushThread.execute(() -> flushOldest(frozen));
    } catch (RejectedExecutionException e) {
      frozen.flushed().completeExceptionally(new IOException("table closed before the flush", e));
    }
  }

  private void flushOldest(FrozenMemTable frozen) {
    FrozenMemTable f = table.oldestImmutable();
    if (shuttingDown || failure != null || noSpace != null) {
      Throwable e = failure != null ? failure : noSpace;
      Throwable cause = e != null ? e : new IOException("table closed before the flush");
      frozen.flushed().completeExceptionally(cause);
      if (f != null && noSpace == null) {
        f.flushed().completeExceptionally(cause);
      }
      return;
    }
    if (f == null) {
      return;
    }
    Throwable e = flush(f);
    if (e != null) {
      // A newer memtable whose flush this was: no flush will write it now.
      frozen.flushed().completeExceptionally(e);
    }
  }

  /**
   * Flushes {@code f}; returns null, or the failure (latched, or noted as out of space), with which
   * {@code f}'s future is completed.
   */
  private Throwable flush(FrozenMemTable f) {
    try {
      table.flushMemtable(f);
      f.flushed().complete(null);
      maybeScheduleCompaction();
      return null;
    } catch (Throwable e) {
      if (!outOfSpace(e)) {
        latch(e);
      }
      f.flushed().completeExceptionally(e);
      return e;
    }
  }

  /** Notes {@code e} and returns true if it is a failure for lack of space; false otherwise. */
  private boolean outOfSpace(Throwable e) {
    if (!(e instanceof IOException io) || !NoSpace.causedBy(io) || shuttingDown) {
      return false;
    }
    noSpace = io;
    LOG.warn("table {}: background work failed for lack of disk space, retried once space is freed: {}",
        name, io.toString());
    table.backgroundOutOfSpace(io);
    return true;
  }

  /**
   * Schedules a compaction run if one may be due and none is queued. A deferred compaction waits
   * for its back-off, unless level 0 is full: then it is tried at once, so that writers learn
   * without delay whether they stall for a compaction or are refused for lack of space.
   */
  void maybeScheduleCompaction() {
    if (shuttingDown || failure != null || noSpace != null) {
      return;
    }
    if (compactionNoSpace != null && System.nanoTime() - compactionRetryAtNanos < 0 && !table.level0Full()) {
      return;
    }
    if (compactionScheduled.compareAndSet(false, true)) {
      try {
        compactionThread.execute(this::compactWhileDue);
      } catch (RejectedExecutionException e) {
        compactionScheduled.set(false);
      }
    }
  }

  private void compactWhileDue() {
    try {
      while (!shuttingDown && failure == null && noSpace == null) {
        boolean compacted = table.compactOnce(aborted);
        compactionSucceeded();
        if (!compacted) {
          break;
        }
      }
    } catch (CompactionJob.AbortedException e) {
      LOG.debug("table {}: compaction aborted by close", name);
    } catch (Throwable e) {
      if (!shuttingDown && !deferCompaction(e) && !outOfSpace(e)) {
        latch(e);
      }
    } finally {
      compactionScheduled.set(false);
    }
  }

  /** Clears a deferral after a compaction succeeded or none was due (compaction thread). */
  private void compactionSucceeded() {
    if (compactionNoSpace != null) {
      compactionNoSpace = null;
      compactionBackoffNanos = 0;
      LOG.info("table {}: compactions run again after a full disk", name);
    }
  }

  /**
   * Defers a compaction that failed for lack of space while level 0 has room (compaction thread):
   * schedules the next try after the back-off and returns true; false for any other failure.
   */
  private boolean deferCompaction(Throwable e) {
    if (!(e instanceof IOException io) || !NoSpace.causedBy(io) || table.level0Full()) {
      return false;
    }
    boolean first = compactionNoSpace == null;
    compactionBackoffNanos = first
        ? COMPACTION_RETRY_MIN.toNanos()
        : Math.min(COMPACTION_RETRY_MAX.toNanos(), compactionBackoffNanos * 2);
    compactionRetryAtNanos = System.nanoTime() + compactionBackoffNanos;
    compactionNoSpace = io;
    if (first) {
      LOG.warn("table {}: compaction deferred for lack of disk space, writes go on, retried with back-off: {}",
          name, io.toString());
    } else {
      LOG.debug("table {}: compaction deferred again for lack of disk space: {}", name, io.toString());
    }
    table.compactionDeferred(io);
    try {
      compactionThread.schedule(this::maybeScheduleCompaction, compactionBackoffNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      LOG.debug("table {}: closed before a deferred compaction's retry", name);
    }
    return true;
  }

  private void latch(Throwable e) {
    synchronized (this) {
      if (failure == null) {
        failure = e;
        LOG.error("table {}: background work failed; writes are refused from now on", name, e);
      }
    }
    table.backgroundFailed();
  }

  /** Stops both threads: a running flush finishes, a running compaction aborts. */
  void shutdown() {
    shuttingDown = true;
    flushThread.shutdown();
    compactionThread.shutdown();
    try {
      flushThread.awaitTermination(1, TimeUnit.MINUTES);
      compactionThread.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
