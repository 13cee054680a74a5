package org.kvstore.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.locks.ReentrantLock;
import org.kvstore.Durability;
import java.nio.file.Path;
import org.kvstore.KVStoreException;
import org.kvstore.OutcomeUnknownException;
import org.kvstore.ReadOnlyStoreException;
import org.kvstore.StorageIOException;
import org.kvstore.io.NoSpace;
import org.kvstore.spi.Mutation;
import org.kvstore.wal.CommitLog;
import org.kvstore.wal.WalAppendException;

/**
 * The write path of a store: every mutation of a durable table is logged, made as durable as its
 * table's mode asks, then applied to the engine.
 *
 * <pre>
 *   caller
 *     │ 1. begin (key stripes locked): tickets; orderLock: lsn = ++lastLsn; inflight += lsn;
 *     │    log.enqueue(lsn, record); unlock the stripes
 *     │ 2. log.writeUpTo(lsn)            write(): shared by concurrent writers, or in sync mode
 *     │ 3. log.syncUpTo(lsn)             write() and fsync in one group round
 *     │ 4. await the keys' turn, engine.apply(mutations, lsn): visible only now, after it is durable
 *     └ 5. complete the tickets; inflight -= lsn
 * </pre>
 *
 * <p>The apply watermark ({@link #appliedLsn()}) is the highest LSN at or below which every record is
 * applied. Engines read it through {@link #persistableLsn()}, which first makes the log durable up
 * to everything written: an engine may persist only state whose log records are durable, or a power
 * loss could keep a later write in a table while losing an earlier one (a hole).
 *
 * <p>Failures are latched (the fsyncgate rule): once a log sync, a log write that could not be
 * undone, or an apply fails, the pipeline refuses every later write with
 * {@link ReadOnlyStoreException} naming the first failure; reads keep working and reopening the
 * store recovers from the log. A log append that was undone fails only its writes; when it was
 * undone because the disk is full, the store also enters the {@link DiskSpace} "no space" state,
 * which refuses writes until space is freed.
 *
 * <p>What a writer is told (docs/durability.md): success once its record is logged as its mode
 * asks and applied; {@link org.kvstore.NoSpaceException} or another error only when its record is
 * not in the log (refused before logging, or its append was undone); and
 * {@link OutcomeUnknownException} when its record was written but a later step failed (the log's
 * fsync, the apply), since a restart may replay it.
 *
 * <p>Thread safety: thread-safe. {@code orderLock} guards {@code lastLsn} and the order of
 * {@code enqueue} calls; no I/O runs under it.
 */
public final class WritePipeline {
  /** Batches at least this large are applied chunk by chunk of stripes ({@link #applyInTurn}). */
  static final int CHUNKED_APPLY_MIN = 64;

  private final ReentrantLock orderLock = new ReentrantLock();
  @GuardedBy("orderLock")
  private long lastLsn;
  private final ConcurrentSkipListSet<Long> inflight = new ConcurrentSkipListSet<>();
  private volatile CommitLog log = CommitLog.NONE;
  private volatile KVStoreException failure;
  private final DiskSpace space;
  private volatile Path logDirectory = Path.of("wal");

  public WritePipeline(long lastLsn) {
    this(lastLsn, new DiskSpace());
  }

  public WritePipeline(long lastLsn, DiskSpace space) {
    this.lastLsn = lastLsn;
    this.space = space;
  }

  /** The store's "no space" state, which this pipeline checks before every write. */
  public DiskSpace space() {
    return space;
  }

  /** Starts logging to {@code log} (after recovery). */
  public void attach(CommitLog log) {
    this.log = log;
  }

  /** Names the log's directory in the errors of a full disk. */
  public void logDirectory(Path dir) {
    this.logDirectory = dir;
  }

  /**
   * A write that has its LSN and its key tickets, not yet durable or applied. Thread safety:
   * confined to the writing thread.
   */
  static final class PendingWrite {
    final StoreTable table;
    final List<Mutation> mutations;
    final KeySequencer sequencer;
    final int[] stripes;
    final long[] tickets;
    final long lsn;

    PendingWrite(StoreTable table, List<Mutation> mutations, KeySequencer sequencer, int[] stripes, long[] tickets, long lsn) {
      this.table = table;
      this.mutations = mutations;
      this.sequencer = sequencer;
      this.stripes = stripes;
      this.tickets = tickets;
      this.lsn = lsn;
    }
  }

  /**
   * Applies a write of a table that is not durable (no log), under a version drawn from the LSN
   * sequence without a log record (a gap in the log's LSNs, which the log allows). Returns that
   * version. REQUIRES: the stripes of its keys.
   */
  long applyUnlogged(StoreTable table, List<Mutation> mutations) {
    checkWritable();
    long version;
    orderLock.lock();
    try {
      version = ++lastLsn;
    } finally {
      orderLock.unlock();
    }
    try {
      applyTo(table, mutations, version);
      return version;
    } catch (IOException e) {
      throw new StorageIOException("table " + table.qualifiedName() + ": write", e);
    }
  }

  /**
   * Steps 1 of the write: takes the key tickets and the LSN, and queues the log record. REQUIRES:
   * {@code stripes} (the stripes of every key in {@code mutations}) are locked in {@code sequencer}.
   * The caller unlocks them and then calls {@link #finish}.
   */
  PendingWrite begin(StoreTable table, List<Mutation> mutations, KeySequencer sequencer, int[] stripes) {
    checkWritable();
    long[] tickets = sequencer.issue(stripes);
    CommitLog log = this.log;
    long lsn;
    orderLock.lock();
    try {
      lsn = ++lastLsn;
      inflight.add(lsn);
      table.loggedUpTo(lsn);
      try {
        log.enqueue(lsn, table.id(), mutations);
      } catch (IOException e) {
        inflight.remove(lsn);
        sequencer.complete(stripes, tickets);
        throw fail("write-ahead log append failed", e);
      }
    } finally {
      orderLock.unlock();
    }
    return new PendingWrite(table, mutations, sequencer, stripes, tickets, lsn);
  }

  /**
   * Steps 2 to 5: writes and (in sync mode) fsyncs the record, waits for the key's turn, applies,
   * and lets the next writer of the keys go. Holds no key lock: concurrent writers of the same key
   * share the fsync.
   */
  void finish(PendingWrite w) {
    boolean applied = false;
    try {
      CommitLog log = this.log;
      try {
        if (w.table.durabilityMode() == Durability.SYNC) {
          log.syncUpTo(w.lsn); // writes and fsyncs, in one group round
        } else {
          log.writeUpTo(w.lsn);
        }
      } catch (WalAppendException e) {
        // Cut back: the record is not in the log, so this write failed and will never appear.
        if (NoSpace.causedBy(e)) {
          Path dir = logDirectory;
          space.enter("wal", dir, e, () -> probeSpace(dir));
          throw space.errorFor("write-ahead log append for table " + w.table.qualifiedName(), dir, e);
        }
        throw new StorageIOException("table " + w.table.qualifiedName() + ": write", e);
      } catch (IOException e) {
        // The record may be written (and even durable) although the write or its fsync failed.
        fail("write-ahead log write or sync failed", e);
        throw new OutcomeUnknownException(
            "table " + w.table.qualifiedName() + ": the write-ahead log write or fsync failed", e);
      }
      applied = true;
      try {
        applyInTurn(w);
      } catch (IOException | RuntimeException e) {
        // Logged, so never "failed": a restart may replay it (and the engine may hold it already,
        // e.g. when its memtable switch failed after the insert). applyInTurn has recorded the
        // failure (applyFailed).
        throw new OutcomeUnknownException(applyFailure(w), e);
      }
    } finally {
      if (!applied) {
        // Not logged (or not durable): skip the turn without applying, after the earlier writers.
        w.sequencer.awaitTurn(w.stripes, w.tickets);
        w.sequencer.complete(w.stripes, w.tickets);
      }
      inflight.remove(w.lsn);
    }
  }

  /**
   * Waits for the keys' turn and applies the write, completing every ticket (also when the apply
   * fails, once {@link #applyFailed} has recorded the failure). A batch of at least
   * {@link #CHUNKED_APPLY_MIN} mutations is applied chunk by chunk of its stripes
   * ({@link KeySequencer#CHUNKS} ranges, ascending), each chunk's tickets completed as soon as it is
   * applied: the coalesced batches of two event loops hold random keys that share most stripes, and
   * the later one then follows the earlier one range by range instead of waiting for all of it (see
   * docs/decisions/0015-batches-applied-range-by-range.md). A reader may see part of a batch before
   * the rest either way: engines apply a batch's mutations one by one.
   */
  private void applyInTurn(PendingWrite w) throws IOException {
    KeySequencer seq = w.sequencer;
    int[] s = w.stripes;
    if (w.mutations.size() < CHUNKED_APPLY_MIN || s.length < 2) {
      seq.awaitTurn(s, w.tickets);
      try {
        applyTo(w.table, w.mutations, w.lsn);
      } catch (IOException | RuntimeException e) {
        applyFailed(w, e);
        throw e;
      } finally {
        seq.complete(s, w.tickets);
      }
      return;
    }
    List<List<Mutation>> parts = KeySequencer.byChunk(w.mutations);
    Exception failure = null;
    for (int from = 0, to; from < s.length; from = to) {
      int chunk = KeySequencer.chunkOf(s[from]);
      to = from + 1;
      while (to < s.length && KeySequencer.chunkOf(s[to]) == chunk) {
        to++;
      }
      seq.awaitTurn(s, w.tickets, from, to);
      try {
        if (failure == null) {
          applyTo(w.table, parts.get(chunk), w.lsn);
        }
      } catch (IOException | RuntimeException e) {
        failure = e; // the later chunks' tickets are still completed, unapplied
        applyFailed(w, e);
      } finally {
        seq.complete(s, w.tickets, from, to);
      }
    }
    if (failure instanceof IOException e) {
      throw e;
    } else if (failure != null) {
      throw (RuntimeException) failure;
    }
  }

  /**
   * What a logged write whose apply failed with {@code e} does to the store, done before its key
   * tickets are completed: the failure is latched (or, for lack of space, the "no space" state
   * entered) before the next writer of its keys runs, so a write that reads those keys and then
   * finds nothing to do is refused too ({@link StoreTable}), not acknowledged on a state that lacks
   * this write while the log, which the next open replays, holds it.
   */
  private void applyFailed(PendingWrite w, Throwable e) {
    if (NoSpace.causedBy(e) && e instanceof IOException io) {
      // The table could not take it for lack of space (its flushes fail): no state was damaged,
      // so the store waits for space instead of failing for good.
      StoreTable t = w.table;
      space.enter("table " + t.qualifiedName(), t.directory(), io, () -> t.engine().retryAfterNoSpace());
    } else if (e instanceof IOException io) {
      fail(applyFailure(w), io);
    }
  }

  private static String applyFailure(PendingWrite w) {
    return "table " + w.table.qualifiedName() + ": applying a logged write failed";
  }

  /** Applies a logged record to its table. Used by the write path and by recovery. */
  static void applyTo(StoreTable table, List<Mutation> mutations, long lsn) throws IOException {
    if (mutations.size() == 1) {
      Mutation m = mutations.get(0);
      if (m.isRemove()) {
        table.engine().remove(m.key(), lsn);
      } else {
        table.engine().put(m.key(), m.value(), m.expiresAt(), lsn);
      }
    } else {
      table.engine().apply(mutations, lsn);
    }
  }

  /** Every record at or below the returned LSN has been applied to its table. */
  public long appliedLsn() {
    orderLock.lock();
    try {
      // One read: writers remove their LSN without the lock, so isEmpty() then first() could throw.
      Long oldest = inflight.ceiling(Long.MIN_VALUE);
      return oldest == null ? lastLsn : oldest - 1;
    } finally {
      orderLock.unlock();
    }
  }

  /**
   * The apply watermark, after making every written log record durable: what an engine may record
   * as the LSN of the state it is about to persist (the {@code EngineContext.appliedLsn} hook).
   *
   * @throws StorageIOException if the log sync failed (the failure is latched)
   */
  public long persistableLsn() {
    long watermark = appliedLsn();
    try {
      log.syncWritten();
    } catch (IOException e) {
      throw fail("write-ahead log sync before persisting table state failed", e);
    }
    return watermark;
  }

  /** Raises the last LSN to at least {@code lsn} (recovery: LSNs never go back across restarts). */
  public void advanceTo(long lsn) {
    orderLock.lock();
    try {
      lastLsn = Math.max(lastLsn, lsn);
    } finally {
      orderLock.unlock();
    }
  }

  /** The last LSN handed out. */
  public long lastLsn() {
    orderLock.lock();
    try {
      return lastLsn;
    } finally {
      orderLock.unlock();
    }
  }

  /** The latched failure, or {@code null} while the store is writable. */
  public KVStoreException failure() {
    return failure;
  }

  public void checkWritable() {
    checkNotFailed();
    space.checkWritable();
  }

  /** Throws {@link ReadOnlyStoreException} once a permanent failure is latched (not for a full disk). */
  public void checkNotFailed() {
    KVStoreException f = failure;
    if (f != null) {
      throw new ReadOnlyStoreException(f.getMessage(), f);
    }
  }

  /**
   * How the retry of a failed log append learns that the log's directory has space again (set by
   * the store: a probe file written, synced and deleted there).
   */
  private volatile java.util.function.Function<Path, DiskSpace.Retry> prober = dir -> () -> {};

  public void prober(java.util.function.Function<Path, DiskSpace.Retry> prober) {
    this.prober = prober;
  }

  private void probeSpace(Path dir) throws IOException {
    prober.apply(dir).run();
  }

  /** Latches {@code e} as the store's failure (the first one wins) and returns the error for the caller. */
  public KVStoreException fail(String what, IOException e) {
    StorageIOException error = new StorageIOException(what, e);
    synchronized (this) {
      if (failure == null) {
        failure = error;
      }
    }
    return error;
  }
}
