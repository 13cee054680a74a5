package org.kvstore.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.output.OutputLimits;
import org.kvstore.server.thrift.ThriftConnectionHandler;
import org.kvstore.server.thrift.ThriftKvService;
import org.kvstore.server.thrift.ThriftLimits;
import org.kvstore.server.thrift.ThriftMessageDecoder;
import org.kvstore.server.thrift.ThriftRequestObserver;

/**
 * The Thrift front end, on the event loops RESP uses: one port serving framed and unframed
 * transports with the binary and compact protocols (told apart by each connection's first bytes,
 * see {@link org.kvstore.server.thrift.ThriftWireFormat}); docs/thrift.md says why it is not one of
 * libthrift's servers. Pipeline per connection:
 *
 * <pre>
 *   socket ──▶ ThriftMessageDecoder ──▶ ThriftConnectionHandler (KvService.Processor) ──▶ socket
 * </pre>
 *
 * <p>Thread safety: see {@link ProtocolServer}.
 */
final class ThriftProtocolServer implements ProtocolServer {
  private final NettyTransport transport;
  private final String bind;
  private final int port;
  private final Keyspace keyspace;
  private final ThriftLimits limits;
  /** Digest of the password, or null when there is none. */
  private final byte[] passwordDigest;
  private final Executor workers;
  private final OutputLimits outputLimits;
  private final ThriftRequestObserver observer;
  private final ChannelGroup connections = new DefaultChannelGroup("thrift", GlobalEventExecutor.INSTANCE);
  private final java.util.concurrent.atomic.AtomicLong accepted = new java.util.concurrent.atomic.AtomicLong();
  private final org.kvstore.server.metrics.ByteCounter bytes = new org.kvstore.server.metrics.ByteCounter();
  private Channel serverChannel;

  ThriftProtocolServer(NettyTransport transport, String bind, int port, Keyspace keyspace, ThriftLimits limits,
      String password, Executor workers, ThriftRequestObserver observer, OutputLimits outputLimits) {
    this.transport = transport;
    this.bind = bind;
    this.port = port;
    this.keyspace = keyspace;
    this.limits = limits;
    this.passwordDigest = password == null ? null : ThriftKvService.digest(password);
    this.workers = workers;
    this.observer = observer;
    this.outputLimits = outputLimits;
  }

  @Override
  public String name() {
    return "Thrift";
  }

  /** Connections open now. */
  public long openConnections() {
    return connections.size();
  }

  /** Connections accepted since start. */
  public long acceptedConnections() {
    return accepted.get();
  }

  /** The bytes its connections read and wrote. */
  public org.kvstore.server.metrics.ByteCounter bytes() {
    return bytes;
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
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, RespProtocolServer.WATER_MARK)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            connections.add(ch);
            accepted.incrementAndGet();
            ch.pipeline().addLast("bytes", bytes);
            ch.pipeline().addLast("output", outputLimits.newGuard("Thrift", () -> "addr=" + ch.remoteAddress()));
            ch.pipeline().addLast("thrift-decoder", new ThriftMessageDecoder(limits.maxMessageBytes()));
            ch.pipeline().addLast("thrift-handler", new ThriftConnectionHandler(
                new ThriftKvService(keyspace, limits, passwordDigest), workers, observer, limits.maxMessageBytes()));
          }
        });
    try {
      serverChannel = b.bind(new InetSocketAddress(bind, port)).syncUninterruptibly().channel();
    } catch (Exception e) {
      throw ServerStartException.cannotListen("Thrift", bind, port, "--thrift-port", e);
    }
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
