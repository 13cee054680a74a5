package org.kvstore.cluster.shard;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;

/**
 * Striped latches over the (table, key) pairs of a shard, taken by the leader from the read of a
 * write until its entry is applied (SCALEOUT.md §3.3): a read-modify-write that holds them sees
 * every earlier write of its keys through this leader, and no later one can slip in between its
 * read and its write.
 *
 * <p>Thread safety: thread-safe. A latch is a one-permit {@link Semaphore}, not owned by a thread:
 * an asynchronous write takes its latches on an event loop and gives them back on the thread that
 * learns its entry was applied. Latches are not reentrant: a holder must not take a stripe it holds.
 * Stripes are taken in ascending order, so two writers of overlapping keys cannot deadlock.
 */
public final class KeyLatches {
  private static final int STRIPES = 1024;
  private final Semaphore[] locks = new Semaphore[STRIPES];

  public KeyLatches() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new Semaphore(1);
    }
  }

  /** The sorted, distinct stripes of {@code keys} of {@code table}. */
  public static int[] stripesOf(String table, List<byte[]> keys) {
    int seed = Arrays.hashCode(table.getBytes(StandardCharsets.UTF_8));
    int[] s = new int[keys.size()];
    for (int i = 0; i < s.length; i++) {
      int h = Arrays.hashCode(keys.get(i)) * 31 + seed;
      h ^= h >>> 16;
      s[i] = (h & 0x7fffffff) % STRIPES;
    }
    return Arrays.stream(s).sorted().distinct().toArray();
  }

  /** Takes the latches of {@code stripes} (from {@link #stripesOf}), waiting for each. */
  public void lock(int[] stripes) {
    for (int s : stripes) {
      locks[s].acquireUninterruptibly();
    }
  }

  /** Takes the latches of {@code stripes} if all are free now; else takes none and returns false. */
  public boolean tryLock(int[] stripes) {
    for (int i = 0; i < stripes.length; i++) {
      if (!locks[stripes[i]].tryAcquire()) {
        for (int j = i - 1; j >= 0; j--) {
          locks[stripes[j]].release();
        }
        return false;
      }
    }
    return true;
  }

  /** Gives back the latches of {@code stripes}, taken by {@link #lock} or {@link #tryLock}. */
  public void unlock(int[] stripes) {
    for (int i = stripes.length - 1; i >= 0; i--) {
      locks[stripes[i]].release();
    }
  }
}
