package org.kvstore.server;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.internal.ThreadExecutorMap;

/**
 * An event loop's select strategy that polls for ready channels, yielding the CPU between polls,
 * for up to {@code spinNanos} before it blocks in {@code epoll_wait}. An unpipelined client sends
 * its next request a few tens of microseconds after our reply; a loop that is still polling then
 * picks it up without being woken (a futex or IPI for the sender, a context switch for the loop).
 * Tasks submitted to the loop while it polls are seen through the executor's pending-task count
 * (Netty does not wake a loop that is not blocked).
 *
 * <p>Thread safety: stateless but for the immutable spin time; each loop calls it on its own thread.
 */
final class SpinThenBlockSelectStrategy implements SelectStrategy {
  private final long spinNanos;

  SpinThenBlockSelectStrategy(long spinNanos) {
    this.spinNanos = spinNanos;
  }

  static SelectStrategyFactory factory(long spinNanos) {
    return () -> new SpinThenBlockSelectStrategy(spinNanos);
  }

  @Override
  public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
    if (hasTasks) {
      return selectSupplier.get();
    }
    if (spinNanos == 0) {
      return SelectStrategy.SELECT;
    }
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
