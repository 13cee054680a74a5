package org.kvstore.server.output;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A connection on Netty's local transport, with its own event loop, whose pipeline holds the given
 * handlers and then one more: the context a producer on a worker hands its parts to. What it sends
 * is read and dropped by the other end at once.
 *
 * <p>Thread safety: confined to the test's thread.
 */
public final class LocalConnection implements AutoCloseable {
  private final DefaultEventLoopGroup group = new DefaultEventLoopGroup(1);
  private final Channel server;
  private final Channel channel;
  private final ChannelHandlerContext ctx;

  public LocalConnection(ChannelHandler... first) throws Exception {
    LocalAddress address = new LocalAddress(LocalConnection.class);
    server = new ServerBootstrap().group(group).channel(LocalServerChannel.class)
        .childHandler(new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext c, Object msg) {
            ReferenceCountUtil.release(msg);
          }
        })
        .bind(address).sync().channel();
    CompletableFuture<ChannelHandlerContext> added = new CompletableFuture<>();
    channel = new Bootstrap().group(group).channel(LocalChannel.class)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(first);
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void handlerAdded(ChannelHandlerContext c) {
                added.complete(c);
              }
            });
          }
        })
        .connect(address).sync().channel();
    ctx = added.get(10, TimeUnit.SECONDS);
  }

  /** The context of the connection's last handler. */
  public ChannelHandlerContext ctx() {
    return ctx;
  }

  @Override
  public void close() throws InterruptedException {
    channel.close().sync();
    server.close().sync();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }
}
