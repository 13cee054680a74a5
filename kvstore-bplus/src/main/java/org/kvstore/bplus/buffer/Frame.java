package org.kvstore.bplus.buffer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.StampedLock;
import org.kvstore.spi.RefCount;

/**
 * One page-sized slot of the buffer pool.
 *
 * <p>Readers of the tree use it in two ways (docs/format/bplus.md section 6): pinned and latched
 * through a {@link PinnedPage}, or optimistically, without a pin and without writing any shared
 * memory: {@link #tryOptimisticRead()}, check {@link #pageId()}, read {@link #data()}, and trust
 * what was read only if {@link #validate} then succeeds.
 *
 * <p>Pins are counted by a {@link RefCount} that holds one reference for the frame being usable
 * (in use or unpinned in the CLOCK) plus one per pin; it is dead (zero, so {@link #tryPin} refuses)
 * while the frame is being evicted or is free-listed. The pool moves a frame between those states
 * with {@link #pinOnceForCaller}, {@link #tryLockOut}, {@link #unlockOut} and {@link #markFree}.
 *
 * <p>Thread safety: the pin count is atomic ({@link #pins} is -1 while the frame is being evicted
 * or is free); the page bytes are guarded by {@code latch}, a {@link StampedLock} (read lock to
 * read, write lock to change; only a thread holding a pin may take either). Every change of the
 * bytes or of {@code pageId} happens under the write lock (loading, changing, discarding, and
 * eviction, which takes the write lock of the frame it unmaps), so a successful {@link #validate}
 * proves that the bytes read belonged to page {@link #pageId()} at one moment. {@code pageId},
 * {@code dirty} and {@code referenced} are volatile.
 */
public final class Frame {
  final int index;
  final byte[] data;
  /** The pool's count of dirty frames, kept by {@link #markDirty} and {@link #markClean}. */
  private final AtomicInteger dirtyFrames;
  private final RefCount refs = new RefCount(1);
  final StampedLock latch = new StampedLock();
  volatile long pageId;
  volatile boolean dirty;
  volatile boolean referenced;
  /** True while the page is read from disk (the loader holds the write lock). */
  volatile boolean loading;

  Frame(int index, int pageSize) {
    this(index, pageSize, new AtomicInteger());
  }

  Frame(int index, int pageSize, AtomicInteger dirtyFrames) {
    this.index = index;
    this.data = new byte[pageSize];
    this.dirtyFrames = dirtyFrames;
  }

  /**
   * Marks the page changed. REQUIRES: the exclusive latch, or the frame locked out or not shared:
   * changes of {@code dirty} never race, so the pool's count stays exact.
   */
  void markDirty() {
    if (!dirty) {
      dirty = true;
      dirtyFrames.incrementAndGet();
    }
  }

  /** Marks the page clean (written back, discarded or unmapped). REQUIRES: as {@link #markDirty}. */
  void markClean() {
    if (dirty) {
      dirty = false;
      dirtyFrames.decrementAndGet();
    }
  }

  /** Pins the frame unless it is being evicted. */
  boolean tryPin() {
    return refs.tryAcquire();
  }

  void unpin() {
    boolean dead = refs.release();
    assert !dead : "unbalanced unpin of frame " + index;
  }

  /** The pins held: 0 when unpinned, -1 while being evicted or free-listed. */
  int pins() {
    return refs.count() - 1;
  }

  /**
   * Makes a frame the pool took (new, free-listed or evicted) usable and pinned once, for the
   * caller. REQUIRES: no other thread can pin it (it is locked out or not yet shared).
   */
  void pinOnceForCaller() {
    refs.set(2);
  }

  /** Locks an unpinned frame out for eviction (pins 0 to -1); false when it is pinned or locked. */
  boolean tryLockOut() {
    return refs.tryReleaseLast();
  }

  /** Gives a locked-out frame back, unpinned, when its eviction is abandoned. */
  void unlockOut() {
    refs.set(1);
  }

  /**
   * Locks a frame out while it is free-listed, taking the caller's pin with it. Waits while another
   * thread holds a pin for a moment: one that found the frame under the page it held before it was
   * evicted pins it, sees another page id and unpins (a plain set would drop that pin, and its
   * unpin would then kill the frame). REQUIRES: the caller holds exactly one pin and the frame is
   * not mapped, so no other pin lasts.
   */
  void markFree() {
    for (int spins = 0; !refs.compareAndSet(2, 0); spins++) {
      if (spins > 100) {
        Thread.yield();
      } else {
        Thread.onSpinWait();
      }
    }
  }

  /**
   * Starts an optimistic read: a stamp to {@link #validate} afterwards, or 0 while the frame is
   * being changed (then retry or take the latch).
   */
  public long tryOptimisticRead() {
    return latch.tryOptimisticRead();
  }

  /** Whether nothing changed the frame since {@code stamp} was taken (a load fence first). */
  public boolean validate(long stamp) {
    return latch.validate(stamp);
  }

  /** The page this frame holds (0 = none); read it after taking the stamp. */
  public long pageId() {
    return pageId;
  }

  /** The page's bytes: under a latch, or optimistically (validate before trusting them). */
  public byte[] data() {
    return data;
  }
}
