package org.kvstore.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.kvstore.spi.Mutation;

/**
 * Orders the writes of one table key by key without holding a lock across the log's fsync, so
 * that concurrent writers of the same key still share one fsync (group commit).
 *
 * <p>Keys hash to stripes. A writer locks the stripes of its keys (ascending, so batches cannot
 * deadlock), takes its LSN and one ticket per stripe, and unlocks. After its record is durable it
 * waits for its turn on each stripe (every earlier ticket completed), applies, and completes its
 * tickets. Because tickets are taken while all of a writer's stripes are locked, every two writers
 * are ordered the same way on every stripe they share, so the waits cannot form a cycle, and each
 * key's writes reach the engine in LSN order.
 *
 * <p>A writer may also take its turn and complete its tickets range by range of its (ascending)
 * stripes: it then waits only for the earlier writers' progress through the same range, so two
 * large batches that share most stripes apply their key ranges at the same time, one range apart,
 * instead of one after the other. The order argument is unchanged: a writer waits only for writers
 * that took their tickets before it did.
 *
 * <p>A read-modify-write (or a remove that reports whether the key existed) waits, while holding
 * the locks, until its stripes are quiescent (every issued ticket completed), so it reads the
 * latest value and no other writer can slip in before its own ticket.
 *
 * <p>Thread safety: thread-safe. A stripe's {@code lock} guards {@code issued}; {@code completed}
 * is written under the stripe's monitor (which waiters wait on) and read without it first.
 */
final class KeySequencer {
  private static final int STRIPES = 1024;
  /** Ranges of stripes a large batch is applied in, one after the other (see WritePipeline). */
  static final int CHUNKS = 8;
  private final Stripe[] stripes = new Stripe[STRIPES];

  /** One stripe. */
  private static final class Stripe {
    final ReentrantLock lock = new ReentrantLock();
    @GuardedBy("lock")
    private long issued;
    /** Written under this stripe's monitor; volatile so a turn that has come is seen without it. */
    volatile long completed;

    /** The last ticket taken of this stripe. REQUIRES: {@code lock}. */
    @GuardedBy("lock")
    long issuedLocked() {
      assert lock.isHeldByCurrentThread();
      return issued;
    }

    /** The next ticket of this stripe. REQUIRES: {@code lock}. */
    @GuardedBy("lock")
    long issueLocked() {
      assert lock.isHeldByCurrentThread();
      return ++issued;
    }
  }

  KeySequencer() {
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new Stripe();
    }
  }

  static int stripe(byte[] key) {
    int h = Arrays.hashCode(key);
    h ^= h >>> 16;
    return h & (STRIPES - 1);
  }

  /** The distinct stripes of {@code keys}, ascending. */
  static int[] stripesOf(Collection<byte[]> keys) {
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
    return Arrays.copyOf(s, distinct);
  }

  static int[] stripesOf(byte[] key) {
    return new int[] {stripe(key)};
  }

  void lock(int[] s) {
    for (int i : s) {
      stripes[i].lock.lock();
    }
  }

  void unlock(int[] s) {
    for (int i = s.length - 1; i >= 0; i--) {
      stripes[s[i]].lock.unlock();
    }
  }

  /** Takes one ticket per stripe. REQUIRES: the stripes are locked. */
  @SuppressWarnings("GuardedBy") // the stripes were locked by lock(int[]): a loop the checker cannot follow
  long[] issue(int[] s) {
    long[] tickets = new long[s.length];
    for (int i = 0; i < s.length; i++) {
      tickets[i] = stripes[s[i]].issueLocked();
    }
    return tickets;
  }

  /** Waits until every earlier ticket of these stripes is completed. */
  void awaitTurn(int[] s, long[] tickets) {
    awaitTurn(s, tickets, 0, s.length);
  }

  /** As {@link #awaitTurn(int[], long[])} for the stripes {@code s[from..to)}. */
  void awaitTurn(int[] s, long[] tickets, int from, int to) {
    for (int i = from; i < to; i++) {
      Stripe st = stripes[s[i]];
      long before = tickets[i] - 1;
      if (st.completed >= before) {
        continue; // the usual case: no earlier writer of this stripe is still in flight
      }
      synchronized (st) {
        boolean interrupted = false;
        while (st.completed < before) {
          try {
            st.wait();
          } catch (InterruptedException e) {
            interrupted = true; // the turn must still be taken, or later writers would wait forever
          }
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** Completes the tickets (applied, or abandoned after a failure), letting the next writers go. */
  void complete(int[] s, long[] tickets) {
    complete(s, tickets, 0, s.length);
  }

  /** As {@link #complete(int[], long[])} for the stripes {@code s[from..to)}. */
  void complete(int[] s, long[] tickets, int from, int to) {
    for (int i = from; i < to; i++) {
      Stripe st = stripes[s[i]];
      synchronized (st) {
        st.completed = tickets[i];
        st.notifyAll();
      }
    }
  }

  /** The chunk of a stripe: {@value #CHUNKS} ranges of consecutive stripes. */
  static int chunkOf(int stripe) {
    return stripe / (STRIPES / CHUNKS);
  }

  /** The mutations of each chunk of stripes, in their order within {@code mutations}. */
  static List<List<Mutation>> byChunk(List<Mutation> mutations) {
    List<List<Mutation>> parts = new ArrayList<>(CHUNKS);
    for (int c = 0; c < CHUNKS; c++) {
      parts.add(new ArrayList<>(mutations.size() / CHUNKS + 8));
    }
    for (Mutation m : mutations) {
      parts.get(chunkOf(stripe(m.key()))).add(m);
    }
    return parts;
  }

  /** Waits until every issued ticket of these stripes is completed. REQUIRES: the stripes are locked. */
  @SuppressWarnings("GuardedBy") // the stripes were locked by lock(int[]): a loop the checker cannot follow
  void awaitQuiescent(int[] s) {
    long[] issued = new long[s.length];
    for (int i = 0; i < s.length; i++) {
      issued[i] = stripes[s[i]].issuedLocked() + 1;
    }
    awaitTurn(s, issued);
  }
}
