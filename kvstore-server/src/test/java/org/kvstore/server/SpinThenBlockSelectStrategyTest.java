package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A loop that is polling (not blocked, so Netty does not wake it) still runs a task submitted from
 * another thread at once, not when its spin ends; and no more loops of a group poll at a time than
 * the bound allows.
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
        SelectorProvider.provider(), SpinThenBlockSelectStrategy.factory(LONG_SPIN_NANOS, 1)));
  }

  @Test
  void epollLoop_runsTasksSubmittedWhileItSpins() throws Exception {
    assumeTrue(Epoll.isAvailable(), "epoll exists on Linux only (NIO covers the strategy elsewhere)");
    tasksRunWhileSpinning(new EpollEventLoopGroup(1, new DefaultThreadFactory("spin-test", true),
        SpinThenBlockSelectStrategy.factory(LONG_SPIN_NANOS, 1)));
  }

  @Test
  void atMostMaxSpinnersPollAtOnce_theOthersBlockAtOnce() throws Exception {
    SelectStrategyFactory factory = SpinThenBlockSelectStrategy.factory(LONG_SPIN_NANOS, 1);
    SelectStrategy first = factory.newSelectStrategy();
    SelectStrategy second = factory.newSelectStrategy();
    CountDownLatch polling = new CountDownLatch(1);
    AtomicBoolean ready = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Integer> spinning = pool.submit(() -> first.calculateStrategy(() -> {
        polling.countDown();
        return ready.get() ? 1 : 0;
      }, false));
      assertThat(polling.await(5, TimeUnit.SECONDS)).isTrue();
      AtomicInteger polls = new AtomicInteger();
      int strategy = second.calculateStrategy(() -> {
        polls.incrementAndGet();
        return 0;
      }, false);
      assertThat(strategy).as("the second loop blocks").isEqualTo(SelectStrategy.SELECT);
      assertThat(polls.get()).as("without polling").isZero();
      ready.set(true);
      assertThat(spinning.get(5, TimeUnit.SECONDS)).as("the first saw its ready channel").isEqualTo(1);
      // The first loop stopped polling: the second may poll now.
      assertThat(second.calculateStrategy(() -> 1, false)).isEqualTo(1);
    } finally {
      ready.set(true);
      pool.shutdownNow();
    }
  }

  @Test
  void defaultMaxSpinners_leavesOneCore() {
    assertThat(SpinThenBlockSelectStrategy.defaultMaxSpinners(1)).isEqualTo(1);
    assertThat(SpinThenBlockSelectStrategy.defaultMaxSpinners(2)).isEqualTo(1);
    assertThat(SpinThenBlockSelectStrategy.defaultMaxSpinners(8)).isEqualTo(7);
  }
}
