package org.kvstore.server.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The limits on one channel's and all channels' buffered replies, on embedded channels. */
class OutputGuardTest {
  /** Netty's outbound buffer counts a few dozen bytes per queued message beside its content. */
  private static final long ENTRY_OVERHEAD = 128;

  @Test
  void write_overTheHardLimit_isDroppedAndTheChannelCloses() {
    OutputLimits limits = new OutputLimits(1000, 0, 0, 0);
    OutputGuard guard = limits.newGuard("RESP", () -> "test");
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    ch.write(bytes(600));
    assertThat(guard.buffered()).as("the bytes and Netty's entry for them").isBetween(600L, 600L + ENTRY_OVERHEAD);
    ByteBuf over = bytes(600);
    ch.write(over);
    ch.runPendingTasks();
    assertThat(over.refCnt()).as("the dropped write is released").isZero();
    assertThat(ch.isOpen()).isFalse();
    assertThat(limits.disconnections()).isEqualTo(1);
    assertThat(limits.totalBuffered()).as("a closed channel holds nothing").isZero();
  }

  @Test
  void flushedWrites_areNoLongerCounted() {
    OutputLimits limits = new OutputLimits(1000, 0, 0, 0);
    OutputGuard guard = limits.newGuard("RESP", () -> "test");
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    for (int i = 0; i < 10; i++) {
      ch.writeAndFlush(bytes(600));
      assertThat(guard.buffered()).isZero();
    }
    assertThat(ch.isOpen()).isTrue();
    assertThat(limits.disconnections()).isZero();
    ch.finishAndReleaseAll();
  }

  @Test
  void overTheSoftLimit_closesOnlyWhenItLastsTheSeconds() throws Exception {
    OutputLimits limits = new OutputLimits(1 << 20, 100, 1, 0);
    OutputGuard guard = limits.newGuard("RESP", () -> "test");
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    ch.write(bytes(200));
    ch.flush(); // drained at once: back under the soft limit
    ch.write(bytes(50));
    Thread.sleep(1100);
    ch.advanceTimeBy(1100, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertThat(ch.isOpen()).as("under the soft limit when the time came").isTrue();

    ch.write(bytes(200));
    Thread.sleep(1100);
    ch.advanceTimeBy(1100, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    ch.runPendingTasks();
    assertThat(ch.isOpen()).as("over the soft limit for its seconds").isFalse();
    assertThat(limits.disconnections()).isEqualTo(1);
  }

  @Test
  void overTheSoftLimit_closes_evenWhenAStaleCountStoppedTheClock() throws Exception {
    OutputLimits limits = new OutputLimits(1 << 20, 100, 1, 0);
    OutputGuard guard = limits.newGuard("RESP", () -> "test");
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    ch.write(bytes(200)); // over the soft limit: the clock starts, a check is scheduled
    // A worker's count of 50 bytes, taken before that write, lands after it (the race of a streamed
    // HTTP body: its writer reserves on a worker, the event loop writes). Then nothing more is
    // written: the writer waits for a client that never reads.
    guard.observeSoft(50);
    for (int i = 0; i < 3 && ch.isOpen(); i++) {
      Thread.sleep(1100);
      ch.advanceTimeBy(1100, TimeUnit.MILLISECONDS);
      ch.runScheduledPendingTasks();
      ch.runPendingTasks();
    }
    assertThat(ch.isOpen()).as("still over the soft limit, seconds later").isFalse();
    assertThat(limits.disconnections()).isEqualTo(1);
  }

  @Test
  void mayResume_onlyUnderTheSoftLimitOrTheLowMark() {
    OutputLimits limits = new OutputLimits(1 << 20, 100, 1, 0);
    OutputGuard guard = limits.newGuard("RESP", () -> "test");
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    assertThat(guard.tryReserve(150)).isTrue();
    assertThat(guard.mayResume(50)).as("over the soft limit").isFalse();
    assertThat(guard.mayResume(200)).as("under the low mark").isTrue();
    guard.release(70);
    assertThat(guard.mayResume(50)).as("over the low mark, under the soft limit").isTrue();
    OutputLimits noSoftLimit = new OutputLimits(1 << 20, 100, 0, 0);
    OutputGuard unlimited = noSoftLimit.newGuard("RESP", () -> "test");
    EmbeddedChannel other = new EmbeddedChannel(unlimited);
    assertThat(unlimited.tryReserve(80)).isTrue();
    assertThat(unlimited.mayResume(50)).as("over the low mark, no soft limit").isFalse();
    ch.finishAndReleaseAll();
    other.finishAndReleaseAll();
  }

  @Test
  void mayResume_underTheSoftLimit_restartsItsClock() throws Exception {
    OutputLimits limits = new OutputLimits(1 << 20, 100, 1, 0);
    OutputGuard guard = limits.newGuard("RESP", () -> "test");
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    ch.write(bytes(200)); // over the soft limit: the clock starts
    Thread.sleep(600);
    ch.flush(); // the socket takes it all, which no write reports
    assertThat(guard.mayResume(50)).isTrue();
    ch.write(bytes(200)); // the producer went on: over again
    assertClosedOneSoftSecondAfterDraining(ch);
    assertThat(limits.disconnections()).isEqualTo(1);
  }

  @Test
  void handlerAdded_keepsTheLowWaterMarkOverTheSoftLimit() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(256 << 10, 1 << 20));
    ch.pipeline().addLast(new OutputLimits(4 << 20, 512 << 10, 2, 0).newGuard("RESP", () -> "test"));
    assertThat(ch.config().getWriteBufferLowWaterMark()).isGreaterThan(512 << 10);
    assertThat(ch.config().getWriteBufferHighWaterMark()).as("still over the low one").isEqualTo(1 << 20);

    EmbeddedChannel large = new EmbeddedChannel();
    large.config().setWriteBufferWaterMark(new WriteBufferWaterMark(256 << 10, 1 << 20));
    large.pipeline().addLast(new OutputLimits(16 << 20, 8 << 20, 2, 0).newGuard("RESP", () -> "test"));
    assertThat(large.config().getWriteBufferLowWaterMark()).isGreaterThan(8 << 20);
    assertThat(large.config().getWriteBufferHighWaterMark()).as("raised with it")
        .isGreaterThan(large.config().getWriteBufferLowWaterMark());

    EmbeddedChannel noSoftLimit = new EmbeddedChannel();
    noSoftLimit.config().setWriteBufferWaterMark(new WriteBufferWaterMark(256 << 10, 1 << 20));
    noSoftLimit.pipeline().addLast(new OutputLimits(4 << 20, 512 << 10, 0, 0).newGuard("RESP", () -> "test"));
    assertThat(noSoftLimit.config().getWriteBufferLowWaterMark()).isEqualTo(256 << 10);
    ch.finishAndReleaseAll();
    large.finishAndReleaseAll();
    noSoftLimit.finishAndReleaseAll();
  }

  @Test
  void writableAgain_restartsTheSoftLimitsClock() throws Exception {
    OutputLimits limits = new OutputLimits(1 << 20, 100, 1, 0);
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(10, 50));
    ch.pipeline().addLast(limits.newGuard("RESP", () -> "test"));
    ch.write(bytes(200)); // over the soft limit and the high-water mark: the clock starts
    assertThat(ch.isWritable()).isFalse();
    Thread.sleep(600);
    ch.flush(); // the socket takes it all: writable again, which no write reports
    assertThat(ch.isWritable()).isTrue();
    ch.write(bytes(200)); // the protocol went on: over again
    assertClosedOneSoftSecondAfterDraining(ch);
  }

  /**
   * With a soft limit of one second, a channel over it again since it drained 0.6 s ago stays open
   * (though over the limit 1.2 s since it first went over), and is closed once that second passes.
   */
  private static void assertClosedOneSoftSecondAfterDraining(EmbeddedChannel ch) throws InterruptedException {
    Thread.sleep(600);
    ch.advanceTimeBy(1200, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    ch.runPendingTasks();
    assertThat(ch.isOpen()).as("over the soft limit for 0.6 s since it drained").isTrue();
    Thread.sleep(600);
    ch.advanceTimeBy(600, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    ch.runPendingTasks();
    assertThat(ch.isOpen()).as("over the soft limit for its seconds since it drained").isFalse();
  }

  @Test
  void overTheTotal_closesTheLargestClientFirst() {
    OutputLimits limits = new OutputLimits(1 << 20, 0, 0, 1000);
    OutputGuard small = limits.newGuard("RESP", () -> "small");
    OutputGuard large = limits.newGuard("RESP", () -> "large");
    EmbeddedChannel a = new EmbeddedChannel(small);
    EmbeddedChannel b = new EmbeddedChannel(large);
    a.write(bytes(300));
    b.write(bytes(500));
    assertThat(a.isOpen() && b.isOpen()).isTrue();
    a.write(bytes(300)); // 1,100 in all: a, now holding 600, is the largest
    a.runPendingTasks();
    b.runPendingTasks();
    assertThat(a.isOpen()).as("the client holding 600 of 1,100").isFalse();
    assertThat(b.isOpen()).as("the client holding 500, which fits once the other is gone").isTrue();
    assertThat(limits.disconnections()).isEqualTo(1);
    assertThat(limits.totalBuffered()).isBetween(500L, 500L + ENTRY_OVERHEAD);
    b.finishAndReleaseAll();
  }

  @Test
  void overTheTotal_summedOnlyOnceOneClientHoldsItsShare() {
    OutputLimits limits = new OutputLimits(0, 0, 0, 1 << 20); // share: min(64 KiB, total / 16) = 64 KiB
    java.util.List<EmbeddedChannel> channels = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      EmbeddedChannel ch = new EmbeddedChannel(limits.newGuard("RESP", () -> "many"));
      ch.write(bytes(60 << 10));
      channels.add(ch);
    }
    // 1.2 MB in all, over the 1 MiB total, but no write left a client at its 64 KiB share: not summed.
    assertThat(limits.totalBuffered()).isGreaterThan(1L << 20);
    assertThat(channels).allMatch(EmbeddedChannel::isOpen);
    assertThat(limits.disconnections()).isZero();
    EmbeddedChannel last = channels.get(19);
    last.write(bytes(10 << 10)); // 70 KiB: this write sums, and the largest client goes
    for (EmbeddedChannel ch : channels) {
      ch.runPendingTasks();
    }
    assertThat(last.isOpen()).as("the client holding 70 KiB, the largest").isFalse();
    // The other 19 hold 1,140 KiB: two more of them go (1,020 KiB fits).
    assertThat(limits.disconnections()).isEqualTo(3);
    assertThat(limits.totalBuffered()).isLessThanOrEqualTo(1L << 20);
    for (EmbeddedChannel ch : channels) {
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void tryReserve_overTheHardLimit_failsAndCloses_andReleasesGiveBack() {
    OutputLimits limits = new OutputLimits(1000, 0, 0, 0);
    OutputGuard guard = limits.newGuard("RESP", () -> "test");
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    assertThat(guard.tryReserve(800)).isTrue();
    guard.release(800);
    assertThat(guard.tryReserve(800)).isTrue();
    assertThat(guard.tryReserve(800)).isFalse();
    ch.runPendingTasks();
    assertThat(ch.isOpen()).isFalse();
    assertThat(guard.tryReserve(1)).as("nothing more once disconnecting").isFalse();
    guard.release(800); // the builder gives back what it held: ignored after the close
    assertThat(limits.totalBuffered()).isZero();
  }

  private static ByteBuf bytes(int n) {
    return Unpooled.buffer(n).writeZero(n);
  }
}
