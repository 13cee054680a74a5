package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/**
 * Replies handed to the flusher reach the socket when the loop runs its tasks after the turn's
 * reads, not before; once for several channels; and at once when the loop no longer takes tasks.
 */
class ReplyFlusherTest {

  /** A channel whose handler context the test can write through. */
  private static final class Conn {
    final EmbeddedChannel channel;
    ChannelHandlerContext ctx;

    Conn() {
      channel = new EmbeddedChannel();
      channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
        @Override
        public void handlerAdded(ChannelHandlerContext c) {
          ctx = c;
        }
      });
    }
  }

  @Test
  void flushLater_flushesEveryChannelWhenTheLoopRunsItsTasks() {
    Conn a = new Conn();
    Conn b = new Conn();
    // Both channels of one loop: the embedded loop of a, which runs tasks only when told to.
    ReplyFlusher flusher = new ReplyFlusher.PerLoop().of(a.channel.eventLoop());
    a.ctx.write("reply-a");
    b.ctx.write("reply-b");
    flusher.flushLater(a.ctx);
    flusher.flushLater(b.ctx);
    assertThat(a.channel.outboundMessages()).as("before the loop's tasks run").isEmpty();
    assertThat(b.channel.outboundMessages()).as("before the loop's tasks run").isEmpty();

    a.channel.runPendingTasks();

    assertThat(a.channel.outboundMessages()).containsExactly("reply-a");
    assertThat(b.channel.outboundMessages()).containsExactly("reply-b");

    // The next turn schedules again.
    a.ctx.write("reply-a2");
    flusher.flushLater(a.ctx);
    assertThat(a.channel.outboundMessages()).containsExactly("reply-a");
    a.channel.runPendingTasks();
    assertThat(a.channel.outboundMessages()).containsExactly("reply-a", "reply-a2");
  }

  @Test
  void flushLater_onALoopThatIsShutDown_flushesAtOnce() throws Exception {
    DefaultEventLoop stopped = new DefaultEventLoop();
    stopped.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
    Conn a = new Conn();
    a.ctx.write("reply");
    new ReplyFlusher.PerLoop().of(stopped).flushLater(a.ctx);
    assertThat(a.channel.outboundMessages()).containsExactly("reply");
  }
}
