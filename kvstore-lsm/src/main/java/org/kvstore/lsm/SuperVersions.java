package org.kvstore.lsm;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongSupplier;
import org.kvstore.lsm.memtable.MemTable;
import org.kvstore.lsm.memtable.MemtableArena;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionSet;

/**
 * A table's current read view ({@link SuperVersion}) and its replacements: the memtable switch,
 * which freezes the active memtable and queues its flush, and the installs after a flush and after
 * a compaction.
 *
 * <p>Design: a switch takes the table's write fence exclusively (shared by the writers of
 * {@link LsmTable}, which insert under it), so no insert is half done when the memtable is frozen;
 * it reads the store's applied LSN and the last sequence number under the fence, which makes them
 * the frozen memtable's persisted LSN and largest sequence number. Every replacement happens under
 * {@code lock}, which also orders them against {@link #close()}; the view is a volatile field that
 * readers and writers read without a lock. An install that brings a new {@link Version} empties
 * the reading threads' cached pins ({@link ReadPins#scrape()}), which are all on older versions then.
 *
 * <p>Lock order: the write fence before {@code lock} before the {@link VersionSet}'s lock. No file
 * I/O happens under either.
 *
 * <p>Thread safety: thread-safe.
 */
final class SuperVersions {
  /** When {@link #switchMemtable} switches. */
  enum Switch {
    /** The memtable is full and an immutable slot is free (a write filled it). */
    IF_FULL,
    /** The memtable holds something and an immutable slot is free (the write buffer budget). */
    IF_SLOT_FREE,
    /** Always (an explicit flush or checkpoint). */
    ALWAYS
  }

  /**
   * Bytes of the memtables at one moment: the active one, and the ones waiting for their flush.
   * {@code view} is the super version they were read from: memory is freed only by installing a
   * new one, so while a table's view stays the same its memtables only grow.
   */
  record MemtableBytes(long active, long immutable, Object view) {
    long total() {
      return active + immutable;
    }
  }

  private final LsmOptions opt;
  private final VersionSet versions;
  private final LongSupplier appliedLsn;
  private final StampedLock writeFence;
  private final AtomicLong lastSeq;
  private final ReadPins pins;
  private final FlushCompactionScheduler scheduler;
  private final MemtableArena arena;
  private final Object lock = new Object();
  /** Replaced only under {@code lock}. */
  private volatile SuperVersion current;
  /** Set only under {@code lock}. */
  private volatile boolean closed;

  /**
   * A view of an empty memtable over the version set's current version.
   *
   * @param writeFence the table's write fence: writers hold it shared while they insert
   * @param lastSeq the table's last handed-out sequence number
   * @param pins the point reads' cached pins, emptied at each install of a new version
   * @param scheduler where a switch queues the frozen memtable's flush
   * @param arena where new memtables keep their values
   */
  SuperVersions(
      LsmOptions opt, VersionSet versions, LongSupplier appliedLsn, StampedLock writeFence,
      AtomicLong lastSeq, ReadPins pins, FlushCompactionScheduler scheduler, MemtableArena arena) {
    this.opt = opt;
    this.versions = versions;
    this.appliedLsn = appliedLsn;
    this.writeFence = writeFence;
    this.lastSeq = lastSeq;
    this.pins = pins;
    this.scheduler = scheduler;
    this.arena = arena;
    this.current = new SuperVersion(new MemTable(arena), List.of(), versions.acquireCurrent());
  }

  /** The current view, without a pin (its memtables need none; pin its version to read files). */
  SuperVersion current() {
    return current;
  }

  /** The current view with its version pinned: release with {@code version().unref()}. */
  SuperVersion acquire() {
    for (;;) {
      SuperVersion s = current;
      if (s.version().tryRef()) {
        return s;
      }
    }
  }

  /** The memtables' bytes, both read from one view (a switch moves bytes from one to the other). */
  MemtableBytes memtableBytes() {
    SuperVersion s = current;
    long imm = 0;
    for (FrozenMemTable f : s.imms()) {
      imm += f.mem().approximateBytes();
    }
    return new MemtableBytes(s.mem().approximateBytes(), imm, s);
  }

  /** Whether {@link Switch#IF_SLOT_FREE} would switch the memtable now. */
  boolean canSwitchMemtable() {
    SuperVersion s = current;
    return !closed && !s.mem().isEmpty() && s.imms().size() < opt.maxImmutableMemtables();
  }

  /**
   * Freezes the memtable (as {@code when} says) and schedules its flush.
   *
   * @return the frozen memtable, or {@code null} when nothing was switched
   */
  FrozenMemTable switchMemtable(Switch when) {
    FrozenMemTable frozen;
    long stamp = writeFence.writeLock();
    try {
      synchronized (lock) {
        SuperVersion s = current;
        boolean slotFree = s.imms().size() < opt.maxImmutableMemtables();
        boolean go = switch (when) {
          case IF_FULL -> slotFree && s.mem().approximateBytes() >= opt.memtableBytes();
          case IF_SLOT_FREE -> slotFree && !s.mem().isEmpty() && !closed;
          case ALWAYS -> true;
        };
        if (!go) {
          return null;
        }
        frozen =
            new FrozenMemTable(s.mem(), appliedLsn.getAsLong(), lastSeq.get(), new CompletableFuture<>());
        List<FrozenMemTable> imms = new ArrayList<>(s.imms().size() + 1);
        imms.add(frozen);
        imms.addAll(s.imms());
        installLocked(new MemTable(arena), List.copyOf(imms));
      }
    } finally {
      writeFence.unlockWrite(stamp);
    }
    scheduler.scheduleFlush(frozen);
    return frozen;
  }

  /** Replaces the read view. REQUIRES: {@code lock} held. */
  private void installLocked(MemTable mem, List<FrozenMemTable> imms) {
    assert Thread.holdsLock(lock);
    SuperVersion old = current;
    current = new SuperVersion(mem, imms, versions.acquireCurrent());
    old.version().unref();
    if (current.version() != old.version()) {
      pins.scrape(); // the pins cached by reading threads are on older versions now
    }
  }

  /** The oldest immutable memtable, or {@code null}. */
  FrozenMemTable oldestImmutable() {
    List<FrozenMemTable> imms = current.imms();
    return imms.isEmpty() ? null : imms.get(imms.size() - 1);
  }

  /**
   * After {@code done} is in the manifest: drops it from the view and installs the new version,
   * then releases the table's reference on it (no new reader finds it now; its arena chunks go back
   * when its last cursor closes, and point reads still copying from it read again).
   */
  void flushInstalled(FrozenMemTable done) {
    synchronized (lock) {
      SuperVersion s = current;
      List<FrozenMemTable> imms = new ArrayList<>(s.imms());
      imms.remove(done);
      installLocked(s.mem(), List.copyOf(imms));
    }
    done.mem().release(true);
  }

  /**
   * At the table's close, after its background work stopped: releases the table's reference on the
   * memtables of the view without reusing their chunks (a reader after the close may still read
   * them).
   */
  void releaseMemtables() {
    SuperVersion s;
    synchronized (lock) {
      s = current;
    }
    s.mem().release(false);
    for (FrozenMemTable f : s.imms()) {
      f.mem().release(false);
    }
  }

  /** After a compaction's edit is in the manifest: installs the new version. */
  void versionChanged() {
    synchronized (lock) {
      SuperVersion s = current;
      installLocked(s.mem(), s.imms());
    }
  }

  /**
   * Marks the table closed: from now on {@link Switch#IF_SLOT_FREE} switches nothing.
   *
   * @return {@code false} when it was closed already
   */
  boolean close() {
    synchronized (lock) {
      if (closed) {
        return false;
      }
      closed = true;
      return true;
    }
  }

  boolean isClosed() {
    return closed;
  }
}
