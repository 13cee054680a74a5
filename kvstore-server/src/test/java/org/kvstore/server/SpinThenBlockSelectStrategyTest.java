package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A loop that is polling (not blocked, so Netty does not wake it) still runs a task submitted from
 * another thread at once, not when its spin ends.
 */
class SpinThenBlockSelectStrategyTest {
  private static final long LONG_SPIN_NANOS = TimeUnit.SECONDS.toNanos(20);

  private static void tasksRunWhileSpinning(EventLoopGroup group) throws Exception {
    try {
      for (int i = 0; i < 20; i++) {
        Thread.sleep(5); // the loop has run out of work and polls
        CountDownLatch ran = new CountDownLatch(1);
        long start = System.nanoTime();
        group.next().execute(ran::countDown);
        assertThat(ran.await(5, TimeUnit.SECONDS)).as("task %d ran during the spin", i).isTrue();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void nioLoop_runsTasksSubmittedWhileItSpins() throws Exception {
    tasksRunWhileSpinning(new NioEventLoopGroup(1, new DefaultThreadFactory("spin-test", true),
        SelectorProvider.provider(), SpinThenBlockSelectStrategy.factory(LONG_SPIN_NANOS)));
  }

  @Test
  void epollLoop_runsTasksSubmittedWhileItSpins() throws Exception {
    if (!Epoll.isAvailable()) {
      return; // NIO covers the strategy; epoll exists on Linux only
    }
    tasksRunWhileSpinning(new EpollEventLoopGroup(1, new DefaultThreadFactory("spin-test", true),
        SpinThenBlockSelectStrategy.factory(LONG_SPIN_NANOS)));
  }
}
