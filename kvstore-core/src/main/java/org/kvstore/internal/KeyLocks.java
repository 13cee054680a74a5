package org.kvstore.internal;

import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped locks over the keys of one table. A writer holds the stripes of its keys from the moment
 * its log record gets an LSN until the mutation is applied, so writes of one key reach the engine in
 * LSN order, and read-modify-write operations are atomic. Keys of different stripes proceed in
 * parallel. Stripes are always taken in ascending index order, so batches cannot deadlock.
 *
 * <p>Thread safety: thread-safe.
 */
final class KeyLocks {
  private static final int STRIPES = 1024;
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

  KeyLocks() {
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  static int stripe(byte[] key) {
    int h = Arrays.hashCode(key);
    h ^= h >>> 16;
    return h & (STRIPES - 1);
  }

  /** Locks the stripe of one key; returns the stripe to pass to {@link #unlock(int)}. */
  int lock(byte[] key) {
    int s = stripe(key);
    stripes[s].lock();
    return s;
  }

  void unlock(int stripe) {
    stripes[stripe].unlock();
  }

  /** Locks the stripes of all {@code keys} in ascending order; returns them for {@link #unlockAll}. */
  int[] lockAll(Collection<byte[]> keys) {
    int[] s = new int[keys.size()];
    int n = 0;
    for (byte[] k : keys) {
      s[n++] = stripe(k);
    }
    Arrays.sort(s);
    int distinct = 0;
    for (int i = 0; i < s.length; i++) {
      if (i == 0 || s[i] != s[i - 1]) {
        s[distinct++] = s[i];
      }
    }
    int[] taken = Arrays.copyOf(s, distinct);
    for (int i = 0; i < taken.length; i++) {
      stripes[taken[i]].lock();
    }
    return taken;
  }

  void unlockAll(int[] taken) {
    for (int i = taken.length - 1; i >= 0; i--) {
      stripes[taken[i]].unlock();
    }
  }
}
