package org.kvstore.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Bounds how long a request may take to arrive: the clock starts at its first byte and stops when
 * the HTTP decoder has its last byte; past {@code proto-read-timeout} the connection gets
 * {@code 408} and is closed. A slow or half-sent request (slowloris) thus holds a connection for a
 * bounded time; an idle keep-alive connection between requests is not timed (connections are
 * bounded by {@code maxclients}).
 *
 * <p>It sits in two places of the pipeline: before the decoder ({@link #start}), where it sees raw
 * bytes, and after it ({@link #end}), where it sees the end of each request.
 *
 * <p>Thread safety: confined to the connection's event loop.
 */
final class HttpRequestTimeout {
  private static final byte[] TIMEOUT_BODY =
      ("{\"type\":\"https://kvstore.org/errors/request-timeout\",\"title\":\"Request timeout\",\"status\":408,"
          + "\"detail\":\"the request did not arrive in time\",\"code\":\"request_timeout\"}")
          .getBytes(StandardCharsets.UTF_8);

  private final long timeoutMillis;
  private ScheduledFuture<?> pending;

  HttpRequestTimeout(long timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
  }

  /** The handler before the decoder. */
  ChannelInboundHandlerAdapter start() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (pending == null && timeoutMillis > 0 && msg instanceof ByteBuf b && b.isReadable()) {
          pending = ctx.executor().schedule(() -> expire(ctx), timeoutMillis, TimeUnit.MILLISECONDS);
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
      }
    };
  }

  /** The handler after the decoder. */
  ChannelInboundHandlerAdapter end() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof LastHttpContent) {
          cancel();
        }
        ctx.fireChannelRead(msg);
      }
    };
  }

  private void cancel() {
    if (pending != null) {
      pending.cancel(false);
      pending = null;
    }
  }

  private void expire(ChannelHandlerContext ctx) {
    pending = null;
    String head = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/problem+json\r\nContent-Length: "
        + TIMEOUT_BODY.length + "\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n";
    ctx.writeAndFlush(Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), TIMEOUT_BODY))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
