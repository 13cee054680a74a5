package org.kvstore.bplus.tree;

import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.kvstore.bplus.buffer.WriteBackGate;

/**
 * The write gate of a table (docs/format/bplus.md section 4): mutations and dirty-page evictions
 * hold it shared, a checkpoint's freeze step holds it exclusively, so the freeze sees no
 * half-applied mutation and no page write in flight. Readers never take it.
 *
 * <p>Thread safety: thread-safe (a non-fair {@link ReentrantReadWriteLock}; a waiting freeze blocks
 * new mutations, so it is not starved).
 */
public final class CheckpointGate implements WriteBackGate {
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  /** Enters a mutation. REQUIRES: a matching {@link #exit()} in a finally block. */
  public void enter() {
    lock.readLock().lock();
  }

  @Override
  public boolean tryEnter() {
    return lock.readLock().tryLock();
  }

  @Override
  public void exit() {
    lock.readLock().unlock();
  }

  /** Pauses mutations until {@link #thaw()}. */
  public void freeze() {
    lock.writeLock().lock();
  }

  public void thaw() {
    lock.writeLock().unlock();
  }
}
