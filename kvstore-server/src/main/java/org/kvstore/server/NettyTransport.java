package org.kvstore.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.TimeUnit;

/**
 * The event loops shared by every protocol front end: Netty's native epoll transport on Linux, NIO
 * elsewhere (or when {@code -Dkvstore.server.nio=true}).
 *
 * <p>Thread safety: thread-safe (immutable after construction; the groups are thread-safe).
 */
final class NettyTransport implements AutoCloseable {
  private final boolean epoll;
  private final EventLoopGroup acceptGroup;
  private final EventLoopGroup ioGroup;
  private final int eventLoops;

  /**
   * {@code ioThreads} event loops ({@link ServerConfig#eventLoops}: by default half the cores, not
   * Netty's two per core: on a small machine every extra loop adds a thread wake-up per request and
   * competes with the clients for the cores). An idle loop polls for {@code spinMicros} before it
   * blocks, all but one core's worth of loops at a time ({@link SpinThenBlockSelectStrategy}).
   * See docs/decisions/0007-one-event-loop-and-read-helper.md and
   * docs/decisions/0011-spin-then-block-select.md.
   */
  NettyTransport(int ioThreads, int spinMicros) {
    if (ioThreads < 1) {
      throw new IllegalArgumentException("need at least one event loop, got " + ioThreads);
    }
    this.eventLoops = ioThreads;
    int cores = Runtime.getRuntime().availableProcessors();
    SelectStrategyFactory selectStrategy = SpinThenBlockSelectStrategy.factory(
        spinMicros * 1000L, SpinThenBlockSelectStrategy.defaultMaxSpinners(cores));
    this.epoll = Epoll.isAvailable() && !Boolean.getBoolean("kvstore.server.nio");
    if (epoll) {
      acceptGroup = new EpollEventLoopGroup(1, new DefaultThreadFactory("kv-accept", true));
      ioGroup = new EpollEventLoopGroup(ioThreads, new DefaultThreadFactory("kv-io", true),
          selectStrategy);
    } else {
      acceptGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("kv-accept", true));
      ioGroup = new NioEventLoopGroup(ioThreads, new DefaultThreadFactory("kv-io", true),
          SelectorProvider.provider(), selectStrategy);
    }
  }

  /** {@code epoll} or {@code nio}. */
  String name() {
    return epoll ? "epoll" : "nio";
  }

  /** Number of I/O event loops. */
  int eventLoops() {
    return eventLoops;
  }

  EventLoopGroup acceptGroup() {
    return acceptGroup;
  }

  EventLoopGroup ioGroup() {
    return ioGroup;
  }

  Class<? extends ServerSocketChannel> serverChannelClass() {
    return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  @Override
  public void close() {
    acceptGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    ioGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
