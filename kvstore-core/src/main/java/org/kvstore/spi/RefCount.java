package org.kvstore.spi;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reference count of a shared object that is freed when its last reference goes: an SSTable
 * version or file handle, a buffer-pool frame. While the count is above zero the object is live and
 * {@link #tryAcquire} adds a reference; once it has reached zero the object is dead and
 * {@link #tryAcquire} refuses, so a reader that finds the object after its last release can never
 * revive it. The owner usually holds one reference itself (for the object being current, cached or
 * mapped) and drops it when it retires the object; the holder whose {@link #release} returns
 * {@code true} frees it.
 *
 * <p>Memory ordering: every operation is atomic with volatile semantics (those of {@link
 * AtomicInteger}). So writes a holder made before its {@link #release} are visible to the thread
 * whose release then returns {@code true} (and frees the object); and writes made before the
 * {@link #set} or {@link #tryAcquire} that another holder's successful {@link #tryAcquire} reads
 * the count from are visible to that holder.
 *
 * <p>Thread safety: thread-safe, lock-free ({@link #tryAcquire} is a compare-and-set loop).
 */
public final class RefCount {
  private final AtomicInteger count;

  /** A count of {@code initial} references: 1 for an object its creator holds, 0 for a dead one. */
  public RefCount(int initial) {
    if (initial < 0) {
      throw new IllegalArgumentException("initial reference count " + initial + " is negative");
    }
    this.count = new AtomicInteger(initial);
  }

  /** Adds a reference unless the object is dead (the count is zero); returns whether it did. */
  public boolean tryAcquire() {
    for (;;) {
      int n = count.get();
      if (n <= 0) {
        return false;
      }
      if (count.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Adds a reference. REQUIRES: the caller holds one already, so the object is live. */
  public void acquire() {
    int n = count.incrementAndGet();
    assert n > 1 : "acquired a dead reference count";
  }

  /**
   * Drops a reference; returns {@code true} when it was the last one: the object is dead now and
   * the caller frees it. REQUIRES: the caller holds a reference.
   */
  public boolean release() {
    int n = count.decrementAndGet();
    assert n >= 0 : "reference count released more often than acquired";
    return n == 0;
  }

  /**
   * Drops the caller's reference only if it is the last one (the count goes from 1 to 0), so that
   * the object dies only when nobody else holds it; returns whether it did. On {@code false} the
   * caller still holds its reference.
   */
  public boolean tryReleaseLast() {
    return count.compareAndSet(1, 0);
  }

  /**
   * Sets the count to {@code update} only if it is {@code expect}; returns whether it did. For an
   * owner that retires an object once its own references are the only ones left, while others may
   * still acquire and release in passing.
   */
  public boolean compareAndSet(int expect, int update) {
    if (update < 0) {
      throw new IllegalArgumentException("reference count " + update + " is negative");
    }
    return count.compareAndSet(expect, update);
  }

  /**
   * Sets the count, for an owner that reuses a dead object ({@code n > 0}) or retires one nobody
   * else can hold ({@code n == 0}). REQUIRES: no other thread holds or acquires a reference
   * concurrently (for example, the count is zero, or the owner's own exclusion keeps others out).
   */
  public void set(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("reference count " + n + " is negative");
    }
    count.set(n);
  }

  /** The current count; a snapshot, stale as soon as it is read (for statistics and asserts). */
  public int count() {
    return count.get();
  }

  @Override
  public String toString() {
    return "RefCount[" + count.get() + "]";
  }
}
