package org.kvstore.server;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An event loop's select strategy that polls for ready channels, yielding the CPU between polls,
 * for up to {@code spinNanos} before it blocks in {@code epoll_wait}. An unpipelined client sends
 * its next request a few tens of microseconds after our reply; a loop that is still polling then
 * picks it up without being woken (a futex or IPI for the sender, a context switch for the loop).
 * Tasks submitted to the loop while it polls are seen through the executor's pending-task count
 * (Netty does not wake a loop that is not blocked).
 *
 * <p>At most {@code maxSpinners} loops of a group poll at a time; the others block at once. With one
 * loop per core, loops that all poll leave no core free for the threads they wait for (clients on
 * the same machine, the group-commit and background threads), and a loop with work can then wait a
 * scheduler slice. See docs/decisions/0011-spin-then-block-select.md.
 *
 * <p>Thread safety: the spin time and bound are immutable; the count of polling loops is shared by
 * the group's strategies and atomic; each loop calls its strategy on its own thread.
 */
final class SpinThenBlockSelectStrategy implements SelectStrategy {
  private final long spinNanos;
  private final int maxSpinners;
  private final AtomicInteger spinners;

  SpinThenBlockSelectStrategy(long spinNanos, int maxSpinners, AtomicInteger spinners) {
    this.spinNanos = spinNanos;
    this.maxSpinners = maxSpinners;
    this.spinners = spinners;
  }

  /** Strategies for one event loop group, at most {@code maxSpinners} of them polling at a time. */
  static SelectStrategyFactory factory(long spinNanos, int maxSpinners) {
    AtomicInteger spinners = new AtomicInteger();
    return () -> new SpinThenBlockSelectStrategy(spinNanos, maxSpinners, spinners);
  }

  /** Polling loops for a machine's cores: all but one, at least one. */
  static int defaultMaxSpinners(int cores) {
    return Math.max(1, cores - 1);
  }

  @Override
  public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
    if (hasTasks) {
      return selectSupplier.get();
    }
    if (spinNanos == 0) {
      return SelectStrategy.SELECT;
    }
    if (spinners.incrementAndGet() > maxSpinners) {
      spinners.decrementAndGet();
      return SelectStrategy.SELECT;
    }
    try {
      return poll(selectSupplier);
    } finally {
      spinners.decrementAndGet();
    }
  }

  private int poll(IntSupplier selectSupplier) throws Exception {
    long deadline = System.nanoTime() + spinNanos;
    EventExecutor self = ThreadExecutorMap.currentExecutor();
    SingleThreadEventExecutor loop = self instanceof SingleThreadEventExecutor s ? s : null;
    for (;;) {
      int ready = selectSupplier.get();
      if (ready != 0 || (loop != null && loop.pendingTasks() > 0)) {
        return ready;
      }
      if (System.nanoTime() - deadline >= 0) {
        return SelectStrategy.SELECT;
      }
      Thread.yield();
    }
  }
}
