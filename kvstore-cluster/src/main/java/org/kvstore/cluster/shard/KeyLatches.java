package org.kvstore.cluster.shard;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped latches over the (table, key) pairs of a shard, taken by the leader from the read of a
 * write until its entry is applied (SCALEOUT.md §3.3): a read-modify-write that holds them sees
 * every earlier write of its keys through this leader, and no later one can slip in between its
 * read and its write.
 *
 * <p>Thread safety: thread-safe. {@link #lock} and {@link #unlock} run on the same thread (the
 * latches are {@link ReentrantLock}s); stripes are taken in ascending order, so two writers of
 * overlapping keys cannot deadlock.
 */
public final class KeyLatches {
  private static final int STRIPES = 1024;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

  public KeyLatches() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
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

  public void lock(int[] stripes) {
    for (int s : stripes) {
      locks[s].lock();
    }
  }

  public void unlock(int[] stripes) {
    for (int i = stripes.length - 1; i >= 0; i--) {
      locks[stripes[i]].unlock();
    }
  }
}
