package org.kvstore.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import org.kvstore.server.metrics.ByteCounter;
import org.kvstore.server.output.OutputGuard;
import org.kvstore.server.output.OutputLimits;
import org.kvstore.server.resp.QueryBufferBudget;
import org.kvstore.server.resp.ReadOffload;
import org.kvstore.server.resp.RespCommandHandler;
import org.kvstore.server.resp.RespDecoder;
import org.kvstore.server.command.WriteCoalescer;
import org.kvstore.server.resp.RespCommandExecutor;
import org.kvstore.server.resp.RespSession;
import org.kvstore.server.resp.ReplyFlusher;

/**
 * The Redis-protocol front end: a Netty server whose pipeline per connection is
 *
 * <pre>
 *   socket ──▶ RespDecoder ──▶ RespCommandHandler ──▶ (ByteBuf replies) ──▶ OutputGuard ──▶ socket
 * </pre>
 *
 * <p>The {@link OutputGuard} holds each client to the server's output buffer limits.
 *
 * <p>Thread safety: see {@link ProtocolServer}.
 */
final class RespProtocolServer implements ProtocolServer {
  /** Replies queued beyond the high mark make the channel unwritable (back-pressure). */
  static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);

  private final NettyTransport transport;
  private final String bind;
  private final int port;
  private final RespCommandExecutor sessions;
  private final Executor workers;
  private final WriteCoalescer.PerLoop coalescers;
  private final ReplyFlusher.PerLoop flushers = new ReplyFlusher.PerLoop();
  /** Helpers for pipelined reads, or null. */
  private final ReadOffload reads;
  private final QueryBufferBudget budget;
  private final long readTimeoutMillis;
  private final ByteCounter bytes;
  private final OutputLimits outputLimits;
  private final ChannelGroup connections = new DefaultChannelGroup("resp", GlobalEventExecutor.INSTANCE);
  private volatile Channel serverChannel;

  RespProtocolServer(
      NettyTransport transport, String bind, int port, RespCommandExecutor sessions, Executor workers,
      ReadOffload reads, QueryBufferBudget budget, long readTimeoutMillis, ByteCounter bytes,
      OutputLimits outputLimits) {
    this.transport = transport;
    this.bind = bind;
    this.port = port;
    this.sessions = sessions;
    this.workers = workers;
    this.coalescers = new WriteCoalescer.PerLoop(workers, sessions.putWriter());
    this.reads = reads;
    this.budget = budget;
    this.readTimeoutMillis = readTimeoutMillis;
    this.bytes = bytes;
    this.outputLimits = outputLimits;
  }

  /** The budget of incomplete requests' bytes (for tests and INFO). */
  QueryBufferBudget budget() {
    return budget;
  }

  @Override
  public String name() {
    return "RESP";
  }

  @Override
  public void start() {
    ServerBootstrap b = new ServerBootstrap()
        .group(transport.acceptGroup(), transport.ioGroup())
        .channel(transport.serverChannelClass())
        .option(ChannelOption.SO_BACKLOG, 4096)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            RespSession session = sessions.open(ch.remoteAddress(), ch.localAddress());
            if (session == null) {
              ch.config().setAutoRead(false);
              ch.writeAndFlush(io.netty.buffer.Unpooled.copiedBuffer(
                      "-ERR max number of clients reached\r\n", StandardCharsets.US_ASCII))
                  .addListener(ChannelFutureListener.CLOSE);
              return;
            }
            connections.add(ch);
            ch.pipeline().addLast("bytes", bytes);
            OutputGuard output = outputLimits.newGuard("RESP", session::describe);
            RespDecoder decoder = new RespDecoder(sessions.maxBulkBytes(), sessions.maxMultibulk(),
                session::authenticated, budget, readTimeoutMillis);
            session.buffers(output, decoder);
            ch.pipeline().addLast("output", output);
            ch.pipeline().addLast("resp-decoder", decoder);
            ch.pipeline().addLast("resp-handler", new RespCommandHandler(session, sessions, workers, coalescers, flushers, reads));
          }
        });
    try {
      serverChannel = b.bind(new InetSocketAddress(bind, port)).syncUninterruptibly().channel();
    } catch (Exception e) {
      throw ServerStartException.cannotListen("RESP", bind, port, "--resp-port", e);
    }
  }

  /** Whether it accepts connections (for /ready). */
  boolean listening() {
    Channel c = serverChannel;
    return c != null && c.isActive();
  }

  @Override
  public InetSocketAddress address() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  @Override
  public void stopAccepting() {
    if (serverChannel != null) {
      serverChannel.close().syncUninterruptibly();
    }
  }

  @Override
  public void closeConnections() {
    connections.close().awaitUninterruptibly();
  }
}
