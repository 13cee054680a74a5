package org.kvstore.server.resp;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Helper threads that run runs of quick reads (pipelined {@code GET}s) beside the event loops, so
 * that the pipelined reads of one loop's connections use more than one core.
 *
 * <pre>
 *  event loop:  read conn A (16 GETs) ──▶ offload ─┐      read conn B ──▶ execute inline ──▶ ...
 *  helper:                                         └──▶ execute A's 16 GETs ──▶ replies back to the loop
 * </pre>
 *
 * <p>A connection's handler offloads a run of at least {@link #MIN_RUN} consecutive quick reads
 * (and no other request of that connection runs until the replies are back, so reply order is
 * kept) only when fewer than {@link #RUNS_PER_THREAD} runs per helper are offloaded already: the
 * helpers always have the next runs queued, and beyond that the loop executes reads itself instead
 * of queueing more. A run of fewer reads costs less to execute than to hand over (a thread wake-up
 * each way), so unpipelined clients never leave their loop.
 *
 * <p>Why not more event loops instead: an unpipelined request is mostly system-call time, and on a
 * small machine each extra loop adds a thread that competes with the clients and the store's
 * background threads for the cores. Reads of a pipeline are the one kind of work that is plenty,
 * independent and cheap to hand over. See docs/decisions/0007-one-event-loop-and-read-helper.md.
 *
 * <p>Thread safety: thread-safe; the permit count is atomic and the pool is a
 * {@link ThreadPoolExecutor}.
 */
public final class ReadOffload implements AutoCloseable {
  /** Fewer consecutive reads than this run on the event loop. */
  public static final int MIN_RUN = 4;
  /** Runs offloaded per helper thread (queued or running) before the loop keeps reads to itself. */
  static final int RUNS_PER_THREAD = 8;

  private final ThreadPoolExecutor pool;
  private final int maxInFlight;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final LongAdder runs = new LongAdder();

  /** {@code threads} helper threads (at least one), named {@code kv-read-N}. */
  public ReadOffload(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("read offload needs at least one thread, got " + threads);
    }
    this.maxInFlight = RUNS_PER_THREAD * threads;
    this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        new DefaultThreadFactory("kv-read", true));
    pool.prestartAllCoreThreads();
  }

  /** Number of helper threads. */
  public int threads() {
    return pool.getCorePoolSize();
  }

  /**
   * Takes a permit for one run if fewer than {@code RUNS_PER_THREAD x threads} runs are offloaded;
   * the caller then either {@link #submit}s a run or {@link #release}s the permit.
   */
  boolean tryAcquire() {
    for (;;) {
      int n = inFlight.get();
      if (n >= maxInFlight) {
        return false;
      }
      if (inFlight.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Gives back a permit that {@link #tryAcquire} took. */
  void release() {
    inFlight.decrementAndGet();
  }

  /**
   * Runs {@code run} on a helper under a permit taken by {@link #tryAcquire}; the permit is given
   * back when {@code run} returns (before its results reach the loop, so the loop may offload the
   * next run meanwhile).
   *
   * @throws RejectedExecutionException after {@link #close}; the permit is given back
   */
  void submit(Runnable run) {
    runs.increment();
    try {
      pool.execute(() -> {
        try {
          run.run();
        } finally {
          release();
        }
      });
    } catch (RejectedExecutionException e) {
      runs.decrement();
      release();
      throw e;
    }
  }

  /** Runs offloaded now (queued or running). */
  int inFlight() {
    return inFlight.get();
  }

  /** Runs offloaded since start. */
  public long runs() {
    return runs.sum();
  }

  /** Lets queued runs finish, then stops the helpers; later submits are rejected. */
  @Override
  public void close() {
    pool.shutdown();
    try {
      if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
        pool.shutdownNow();
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
