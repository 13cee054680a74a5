package org.kvstore.bplus.buffer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One page-sized slot of the buffer pool.
 *
 * <p>Thread safety: {@code pins} is atomic (-1 while the frame is being evicted or reassigned);
 * the page bytes are guarded by {@code latch} (shared to read, exclusive to change), which only a
 * thread holding a pin may take; {@code pageId}, {@code dirty} and {@code referenced} are volatile.
 */
final class Frame {
  final int index;
  final byte[] data;
  final AtomicInteger pins = new AtomicInteger();
  final ReentrantReadWriteLock latch = new ReentrantReadWriteLock();
  volatile long pageId;
  volatile boolean dirty;
  volatile boolean referenced;
  /** True while the page is read from disk (the loader holds the exclusive latch). */
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
}
