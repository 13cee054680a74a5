package org.kvstore.server.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the bytes a protocol's connections read and write, at the socket end of their pipelines
 * ({@code kv_network_bytes_total}). One instance serves every connection of a protocol.
 *
 * <p>Thread safety: thread-safe (shared by the event loops).
 */
@ChannelHandler.Sharable
public final class ByteCounter extends ChannelDuplexHandler {
  private final LongAdder in = new LongAdder();
  private final LongAdder out = new LongAdder();

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf b) {
      in.add(b.readableBytes());
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ByteBuf b) {
      out.add(b.readableBytes());
    }
    ctx.write(msg, promise);
  }

  public long bytesIn() {
    return in.sum();
  }

  public long bytesOut() {
    return out.sum();
  }
}
