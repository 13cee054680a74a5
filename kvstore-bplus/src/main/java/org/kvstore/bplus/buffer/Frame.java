package org.kvstore.bplus.buffer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.StampedLock;

/**
 * One page-sized slot of the buffer pool.
 *
 * <p>Readers of the tree use it in two ways (docs/format/bplus.md section 6): pinned and latched
 * through a {@link PinnedPage}, or optimistically, without a pin and without writing any shared
 * memory: {@link #tryOptimisticRead()}, check {@link #pageId()}, read {@link #data()}, and trust
 * what was read only if {@link #validate} then succeeds.
 *
 * <p>Thread safety: {@code pins} is atomic (-1 while the frame is being evicted or is free); the
 * page bytes are guarded by {@code latch}, a {@link StampedLock} (read lock to read, write lock to
 * change; only a thread holding a pin may take either). Every change of the bytes or of {@code
 * pageId} happens under the write lock (loading, changing, discarding, and eviction, which takes
 * the write lock of the frame it unmaps), so a successful {@link #validate} proves that the bytes
 * read belonged to page {@link #pageId()} at one moment. {@code pageId}, {@code dirty} and {@code
 * referenced} are volatile.
 */
public final class Frame {
  final int index;
  final byte[] data;
  final AtomicInteger pins = new AtomicInteger();
  final StampedLock latch = new StampedLock();
  volatile long pageId;
  volatile boolean dirty;
  volatile boolean referenced;
  /** True while the page is read from disk (the loader holds the write lock). */
  volatile boolean loading;

  Frame(int index, int pageSize) {
    this.index = index;
    this.data = new byte[pageSize];
  }

  /** Pins the frame unless it is being evicted. */
  boolean tryPin() {
    while (true) {
      int p = pins.get();
      if (p < 0) {
        return false;
      }
      if (pins.compareAndSet(p, p + 1)) {
        return true;
      }
    }
  }

  void unpin() {
    int p = pins.decrementAndGet();
    assert p >= 0 : "unbalanced unpin of frame " + index;
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
