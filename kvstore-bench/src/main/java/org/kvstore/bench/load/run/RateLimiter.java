package org.kvstore.bench.load.run;

import java.util.concurrent.locks.LockSupport;

/**
 * Paces one thread to a fixed schedule: the i-th request is intended to start at
 * {@code start + i * interval}. {@link #acquire} waits until the next intended start and returns it;
 * when the thread is behind (a stall), it returns at once with the start it should have had, so the
 * latency measured from it includes the time the request waited: the coordinated-omission
 * correction (Gil Tene, "How NOT to Measure Latency"; wrk2 and HdrHistogram record the same way).
 *
 * <p>Thread safety: confined to one thread.
 */
public final class RateLimiter {
  /** Sleeping is imprecise below this; the last stretch is spun. */
  private static final long SPIN_NANOS = 50_000;

  private final long intervalNanos;
  private long next;

  /** {@code intervalNanos} between intended starts, the first at {@code startNanos} (System.nanoTime). */
  public RateLimiter(long intervalNanos, long startNanos) {
    if (intervalNanos < 1) {
      throw new IllegalArgumentException("intervalNanos must be positive, was " + intervalNanos);
    }
    this.intervalNanos = intervalNanos;
    this.next = startNanos;
  }

  /** The interval for {@code opsPerSecond} spread over {@code threads}, each sending {@code batch} at a time. */
  public static long intervalNanos(double opsPerSecond, int threads, int batch) {
    return Math.max(1, Math.round(1e9 * threads * batch / opsPerSecond));
  }

  /** Waits for the next intended start and returns it (System.nanoTime). */
  public long acquire() {
    long intended = next;
    next += intervalNanos;
    long wait;
    while ((wait = intended - System.nanoTime()) > 0) {
      if (wait > SPIN_NANOS) {
        LockSupport.parkNanos(wait - SPIN_NANOS);
      } else {
        Thread.onSpinWait();
      }
    }
    return intended;
  }
}
