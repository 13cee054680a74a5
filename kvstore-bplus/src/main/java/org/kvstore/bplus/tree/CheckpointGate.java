package org.kvstore.bplus.tree;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.kvstore.bplus.buffer.WriteBackGate;

/**
 * The write gate of a table (docs/format/bplus.md section 4): mutations and dirty-page evictions
 * hold it shared, a checkpoint's freeze step holds it exclusively, so the freeze sees no
 * half-applied mutation and no page write in flight. Readers never take it.
 *
 * <p>Design: the shared side is striped over {@link #STRIPES} read-write locks chosen by thread, so
 * concurrent writers do not all update one lock word; a freeze takes every stripe's write lock, in
 * index order, and a thaw releases them.
 *
 * <p>Thread safety: thread-safe (non-fair {@link ReentrantReadWriteLock}s; a waiting freeze blocks
 * new mutations on the stripe it waits for, so it is not starved, and its waits grow when it has to
 * start over). A thread exits the stripe it entered because the stripe depends only on the thread.
 */
public final class CheckpointGate implements WriteBackGate {
  static final int STRIPES = 16;

  private final ReentrantReadWriteLock[] stripes = new ReentrantReadWriteLock[STRIPES];
  @SuppressWarnings("unused")
  private final Object[] padding = new Object[STRIPES]; // keeps the locks' words apart

  public CheckpointGate() {
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantReadWriteLock();
      padding[i] = new long[16];
    }
  }

  @SuppressWarnings("deprecation") // Thread.getId: Thread.threadId() needs Java 19
  private ReentrantReadWriteLock mine() {
    long id = Thread.currentThread().getId();
    return stripes[(int) ((id ^ (id >>> 4)) & (STRIPES - 1))];
  }

  /** Enters a mutation. REQUIRES: a matching {@link #exit()} in a finally block, same thread. */
  public void enter() {
    mine().readLock().lock();
  }

  @Override
  public boolean tryEnter() {
    return mine().readLock().tryLock();
  }

  @Override
  public void exit() {
    mine().readLock().unlock();
  }

  /**
   * Pauses mutations until {@link #thaw()}. Takes the stripes in order, each with a bounded wait; if
   * one is not free in time, it lets go of those it holds, backs off and starts over. It never holds
   * some stripes while waiting long for another: a dirty-page eviction needs its stripe
   * ({@link #tryEnter}), and a mutation inside the gate may wait for a page latch held by a reader
   * that waits for that eviction's frame, so holding stripes while waiting would deadlock.
   */
  public void freeze() {
    long waitMicros = 500;
    while (true) {
      int held = 0;
      try {
        while (held < STRIPES && stripes[held].writeLock().tryLock(waitMicros, TimeUnit.MICROSECONDS)) {
          held++;
        }
      } catch (InterruptedException e) {
        release(held);
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while pausing mutations for a checkpoint", e);
      }
      if (held == STRIPES) {
        return;
      }
      release(held);
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(waitMicros));
      waitMicros = Math.min(waitMicros * 2, 50_000);
    }
  }

  private void release(int held) {
    for (int i = held - 1; i >= 0; i--) {
      stripes[i].writeLock().unlock();
    }
  }

  public void thaw() {
    for (int i = STRIPES - 1; i >= 0; i--) {
      stripes[i].writeLock().unlock();
    }
  }
}
