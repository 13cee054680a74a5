package org.kvstore.wal;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Leader/follower batching for the log's {@code write()} and fsync: of the threads that need the
 * same kind of work done up to some LSN, one becomes the leader and does one round for all of them
 * (covering everything queued so far); the others park until the round that covers them ends, and
 * return without touching a lock.
 *
 * <p>Why not a plain lock: with a lock, every covered waiter still has to take the lock in turn
 * just to see that it is covered, and on a machine with few cores that convoy of hand-offs, not
 * the fsync, bounds the throughput.
 *
 * <p>Waiting followers sit on a lock-free stack of nodes; a leader ending its round takes the whole
 * stack at once, unparks the threads it covered and one it did not (the next leader), and puts the
 * rest back. A follower pushes a fresh node before each check-and-park, so a round ending after
 * that always finds it, and it never has to remove itself.
 *
 * <p>Adaptive spinning: on a fast disk a round lasts about as long as a context switch pair costs
 * on a small machine, and parking then waking every follower (a futex wait, a futex wake and two
 * context switches per write) costs more CPU than the fsync it waits for. So a follower first
 * yields the CPU in a loop (to the leader and to other writers) for up to twice the recent round
 * time, and parks only if that is not enough. The leader keeps the recent round time as a moving
 * average; when rounds are slow (a busy or rotating disk) followers park at once instead of burning
 * CPU that other work needs. See docs/decisions/0014-group-commit-adaptive-spinning.md.
 *
 * <p>Thread safety: thread-safe and lock-free; {@code leading} admits one leader at a time, and
 * only the leader writes {@code roundNanos}.
 */
final class GroupCommitter {
  /** One round of work; progress shows in the caller's {@code done} supplier. */
  @FunctionalInterface
  interface Round {
    void run() throws IOException;
  }

  /** Throws when the work can no longer be done (the log failed or closed). */
  @FunctionalInterface
  interface Check {
    void run() throws IOException;
  }

  /** A parked follower and the LSN it waits for. */
  private static final class Waiter {
    final Thread thread = Thread.currentThread();
    final long target;
    Waiter next;

    Waiter(long target) {
      this.target = target;
    }
  }

  /** Followers spin (yielding) only while a round takes at most this long; slower rounds: park at once. */
  static final long MAX_SPIN_ROUND_NANOS = 500_000;

  /** Followers spin only while the recent round took at most this long. */
  private final long maxSpinRoundNanos;
  private final AtomicBoolean leading = new AtomicBoolean();
  /** Moving average of a round's duration. Written by the leader only. */
  private volatile long roundNanos = MAX_SPIN_ROUND_NANOS + 1;
  private final AtomicReference<Waiter> waiters = new AtomicReference<>();

  GroupCommitter() {
    this(MAX_SPIN_ROUND_NANOS);
  }

  /**
   * With followers spinning only after rounds of at most {@code maxSpinRoundNanos} (a negative
   * value: never spinning, always parking; the interleaving tests use it, since spinning on the
   * clock is not something a model checker can replay).
   */
  GroupCommitter(long maxSpinRoundNanos) {
    this.maxSpinRoundNanos = maxSpinRoundNanos;
  }

  /**
   * Wakes the followers the round covered, and one that it did not, to lead the next round; the
   * other uncovered ones stay parked (back on the stack) instead of all waking to find that they
   * must wait again (with ~100 writers that storm of wake-ups cost more than the fsyncs).
   */
  private void wakeAfterRound(long done) {
    Waiter w = waiters.getAndSet(null);
    boolean nextLeaderWoken = false;
    boolean keptParked = false;
    while (w != null) {
      Waiter next = w.next;
      if (w.target <= done || !nextLeaderWoken) {
        nextLeaderWoken |= w.target > done;
        LockSupport.unpark(w.thread);
      } else {
        push(w);
        keptParked = true;
      }
      w = next;
    }
    // A leader that took the stack before we put those back, and has ended, would not know them:
    // with no leader now, wake them all (a leader's end clears `leading` before taking the stack).
    if (keptParked && !leading.get()) {
      for (Waiter v = waiters.getAndSet(null); v != null; v = v.next) {
        LockSupport.unpark(v.thread);
      }
    }
  }

  private void push(Waiter w) {
    Waiter head;
    do {
      head = waiters.get();
      w.next = head;
    } while (!waiters.compareAndSet(head, w));
  }

  /**
   * Yields while a round runs, for up to twice the recent round time (not at all when rounds are
   * slow). Returns true once {@code done} reaches {@code target}, false when the round ended without
   * covering it or the time is up (the caller then leads or parks).
   */
  private boolean spinUntil(long target, LongSupplier done) {
    long round = roundNanos;
    if (round > maxSpinRoundNanos) {
      return false;
    }
    long deadline = System.nanoTime() + 2 * round;
    while (leading.get()) {
      if (done.getAsLong() >= target) {
        return true;
      }
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.yield();
    }
    return done.getAsLong() >= target;
  }

  /** Returns once {@code done} reaches {@code target}, leading rounds or following them. */
  void await(long target, LongSupplier done, Round round, Check check) throws IOException {
    while (done.getAsLong() < target) {
      check.run();
      if (leading.compareAndSet(false, true)) {
        try {
          if (done.getAsLong() < target) {
            long start = System.nanoTime();
            round.run();
            long took = System.nanoTime() - start;
            roundNanos += (took - roundNanos) / 8;
          }
        } finally {
          leading.set(false);
          wakeAfterRound(done.getAsLong());
        }
      } else if (spinUntil(target, done)) {
        return;
      } else if (leading.get()) {
        push(new Waiter(target));
        if (done.getAsLong() < target && leading.get()) {
          LockSupport.park(this);
        }
      }
    }
  }
}
