package org.kvstore.bplus.tree;

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
 * new mutations on the stripes it already holds or waits for, so it is not starved). A thread exits
 * the stripe it entered because the stripe depends only on the thread.
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

  /** Pauses mutations until {@link #thaw()}. */
  public void freeze() {
    for (ReentrantReadWriteLock l : stripes) {
      l.writeLock().lock();
    }
  }

  public void thaw() {
    for (int i = STRIPES - 1; i >= 0; i--) {
      stripes[i].writeLock().unlock();
    }
  }
}
