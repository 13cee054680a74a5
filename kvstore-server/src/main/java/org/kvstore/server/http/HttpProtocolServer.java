package org.kvstore.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.kvstore.server.ProtocolServer;
import org.kvstore.server.ServerStartException;
import org.kvstore.server.command.Catalog;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.ServerSettings;
import org.kvstore.server.metrics.ByteCounter;
import org.kvstore.server.metrics.ProtocolMetrics;
import org.kvstore.server.metrics.ServerMetrics;
import org.kvstore.server.output.OutputLimits;

/**
 * The HTTP front end: a Netty server on the event loops RESP uses, whose pipeline per connection is
 *
 * <pre>
 *   socket ──▶ ByteCounter ──▶ timeout start ──▶ HttpServerCodec ──▶ timeout end
 *          ──▶ HttpBodyLimit (aggregates, 413) ──▶ HttpConnectionHandler ──▶ HttpService ──▶ routes
 * </pre>
 *
 * <p>The routes: {@link KeyRoutes}, {@link RangeRoutes}, {@link BatchRoutes}, {@link CatalogRoutes},
 * {@link OpsRoutes}; docs/http.md describes them and src/main/resources/openapi.json is their
 * machine-readable description.
 *
 * <p>Thread safety: see {@link ProtocolServer}.
 */
public final class HttpProtocolServer implements ProtocolServer {
  /** Headers beyond this are refused with 431. */
  private static final int MAX_HEADER_BYTES = 16 * 1024;

  /** Where and how it runs. */
  public record Options(
      String bind, int port, String corsOrigin, long readTimeoutMillis, EventLoopGroup acceptGroup,
      EventLoopGroup ioGroup, Class<? extends ServerChannel> channelClass, Executor workers,
      OutputLimits outputLimits) {}

  private final Options options;
  private final ServerSettings settings;
  private final HttpService service;
  private final int maxBodyBytes;
  private final int maxInitialLine;
  private final ByteCounter bytes = new ByteCounter();
  private final LongAdder accepted = new LongAdder();
  private final ChannelGroup connections = new DefaultChannelGroup("http", GlobalEventExecutor.INSTANCE);
  private volatile Channel serverChannel;

  /**
   * {@code readiness}: the checks {@code /ready} reports besides this server's own {@code http}
   * (storage, the other protocols), by name; read at each request.
   */
  public HttpProtocolServer(Options options, Keyspace keyspace, ServerSettings settings, ServerMetrics metrics,
      Map<String, BooleanSupplier> readiness) {
    this.options = options;
    this.settings = settings;
    HttpTables tables = new HttpTables(keyspace);
    Map<String, BooleanSupplier> checks = new LinkedHashMap<>(readiness);
    checks.put("http", () -> serverChannel != null && serverChannel.isActive());
    HttpRouter router = new HttpRouter();
    new OpsRoutes(checks, metrics).register(router);
    new CatalogRoutes(new Catalog(keyspace), tables).register(router);
    new RangeRoutes(tables).register(router);
    new BatchRoutes(tables).register(router);
    new KeyRoutes(tables).register(router);
    this.service = new HttpService(router.build(), new BearerAuth(settings), tables, options.corsOrigin());
    this.maxBodyBytes = keyspace.store().options().maxValueBytes();
    // a key is percent-encoded in the request line: up to three characters per byte
    this.maxInitialLine = 3 * tables.maxKeyBytes() + 4096;
    metrics.add(new ProtocolMetrics("http", service.recorder(), connections::size, accepted::sum, bytes));
  }

  /** The routes, for the test that compares them with the OpenAPI document. */
  HttpRouter router() {
    return service.router();
  }

  @Override
  public String name() {
    return "HTTP";
  }

  @Override
  public void start() {
    ServerBootstrap b = new ServerBootstrap()
        .group(options.acceptGroup(), options.ioGroup())
        .channel(options.channelClass())
        .option(ChannelOption.SO_BACKLOG, 4096)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            accepted.increment();
            if (connections.size() >= settings.maxClients()) {
              refuse(ch);
              return;
            }
            connections.add(ch);
            HttpRequestTimeout timeout = new HttpRequestTimeout(options.readTimeoutMillis());
            HttpConnectionHandler handler = new HttpConnectionHandler(service, options.workers());
            ch.pipeline()
                .addLast("bytes", bytes)
                .addLast("output", options.outputLimits().newGuard("HTTP", () -> handler.describe(ch)))
                .addLast("timeout-start", timeout.start())
                .addLast("codec", new HttpServerCodec(maxInitialLine, MAX_HEADER_BYTES, 64 * 1024))
                .addLast("timeout-end", timeout.end())
                .addLast("body", new HttpBodyLimit(service, maxBodyBytes))
                .addLast("handler", handler);
          }
        });
    try {
      serverChannel = b.bind(new InetSocketAddress(options.bind(), options.port())).syncUninterruptibly().channel();
    } catch (Exception e) {
      throw ServerStartException.cannotListen("HTTP", options.bind(), options.port(), "--http-port", e);
    }
  }

  @Override
  public InetSocketAddress address() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  @Override
  public void stopAccepting() {
    Channel c = serverChannel;
    if (c != null) {
      c.close().syncUninterruptibly();
    }
  }

  /** Open HTTP connections counted against {@code --maxclients} (refused ones are not counted). */
  public int openConnections() {
    return connections.size();
  }

  @Override
  public void closeConnections() {
    connections.close().awaitUninterruptibly();
  }

  /**
   * Answers a connection over {@code --maxclients} with a 503 and ends it without a reset: the
   * response is followed by a half-close, whatever the client sends meanwhile is read and dropped,
   * and the connection closes when the client closes its side (or after a second). Closing at once
   * while a request sits unread would make the kernel answer with a reset that can overtake the 503.
   */
  private void refuse(SocketChannel ch) {
    ch.pipeline().addLast(new HttpServerCodec()).addLast(new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
      }
    });
    ch.writeAndFlush(service.problemResponse(new HttpProblem(ProblemCode.TOO_MANY_CONNECTIONS,
            "max number of clients reached (" + settings.maxClients() + ")"), null))
        .addListener(f -> {
          if (f.isSuccess()) {
            ch.shutdownOutput();
            ch.eventLoop().schedule(() -> ch.close(), 1, TimeUnit.SECONDS);
          } else {
            ch.close();
          }
        });
  }

}
