package org.kvstore.internal;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets any number of operations run on a table at once, and lets closing it wait until the running
 * ones have left and refuse new ones: a read-write lock whose read side writes no shared cache line.
 * Each thread counts its operations in its own padded slot (chosen by thread id), so concurrent
 * readers on different cores do not contend, which a plain read lock's single counter would.
 *
 * <p>Why it is safe: {@link #enter} increments its slot and then reads {@code closedReason};
 * {@link #close} writes {@code closedReason} and then reads the slots. Both are volatile accesses,
 * so at least one side sees the other: either the operation sees the close and leaves, or the close
 * sees the operation's count and waits for it.
 *
 * <p>Thread safety: thread-safe and lock-free for operations; {@link #close} spins (with short
 * parks) until the slots drain. Operations are reentrant (a cursor move inside an operation counts
 * twice).
 */
final class OperationGate {
  private static final int SLOTS = 64;
  /** Longs per slot: 128 bytes apart, so two slots never share a cache line (or an adjacent pair). */
  private static final int PAD = 16;

  private final AtomicLongArray counts = new AtomicLongArray(SLOTS * PAD);
  private volatile String closedReason;

  private static int slot() {
    long id = Thread.currentThread().getId();
    return (int) ((id ^ (id >>> 7)) & (SLOTS - 1)) * PAD;
  }

  /**
   * Enters an operation; returns {@code null}, or the close reason when the gate is closed (then
   * the operation must not run and must not call {@link #exit}).
   */
  String enter() {
    int s = slot();
    counts.incrementAndGet(s);
    String reason = closedReason;
    if (reason != null) {
      counts.decrementAndGet(s);
    }
    return reason;
  }

  /** Leaves an operation entered by this thread. */
  void exit() {
    counts.decrementAndGet(slot());
  }

  /** The close reason, or {@code null} while open. */
  String closedReason() {
    return closedReason;
  }

  /**
   * Closes the gate: new operations are refused with {@code reason}, and this returns once every
   * running one has left. Returns false when it was closed already. Not for use inside an operation.
   */
  synchronized boolean close(String reason) {
    if (closedReason != null) {
      return false;
    }
    closedReason = reason;
    while (running() > 0) {
      LockSupport.parkNanos(100_000);
    }
    return true;
  }

  private long running() {
    long sum = 0;
    for (int i = 0; i < SLOTS; i++) {
      sum += counts.get(i * PAD);
    }
    return sum;
  }
}
