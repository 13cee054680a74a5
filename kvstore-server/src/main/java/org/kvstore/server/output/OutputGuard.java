package org.kvstore.server.output;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the reply bytes one connection holds and disconnects it when they go over its
 * {@link OutputLimits}. It sits next to the socket in the channel's pipeline, so it sees every
 * encoded byte the protocol writes. What the connection holds is what Netty's
 * {@code ChannelOutboundBuffer} holds for it (Netty keeps that count anyway, falling as the socket
 * takes the bytes; it adds a few dozen bytes per queued message for its own entry) plus what a command building a large reply has reserved ({@link ReplyBudget}):
 * a write costs a read of that count and a comparison, no promise, listener or shared counter.
 *
 * <pre>
 *  handler ──write──▶ OutputGuard ──▶ ChannelOutboundBuffer ──▶ socket
 *                      held + size      (Netty's pending bytes)
 *                      over hard: drop the write, close
 *                      over soft: close if still over after soft-seconds
 *                      server total over its limit: OutputLimits.shed() closes the largest
 * </pre>
 *
 * <p>The protocols pause producing replies while the channel is not writable (over its write-buffer
 * high-water mark, until it drains under the low one, which the guard keeps over the soft limit),
 * and a producer on a worker goes on only once its client is under the soft limit or the low-water
 * mark ({@link #mayResume}), so a client that stops reading is held over the soft limit, which
 * disconnects it after its seconds; the hard limit stops a single reply that is too large.
 *
 * <p>Thread safety: writes and the soft-limit timer run on the channel's event loop;
 * {@link #tryReserve}, {@link #release}, {@link #buffered}, {@link #mayResume} and
 * {@link #disconnect} may be called from any thread. The reserved count is guarded by {@code this};
 * Netty's pending count is a volatile read.
 */
public final class OutputGuard extends ChannelDuplexHandler implements ReplyBudget {
  private static final Logger LOG = LoggerFactory.getLogger(OutputGuard.class);

  private final OutputLimits limits;
  private final String protocol;
  private final Supplier<String> client;
  private volatile ChannelHandlerContext ctx;
  /** Bytes reserved by reply builders. Changed under {@code this}, read without it. */
  private volatile long reserved;
  /** The channel closed: it holds nothing any more, later reservations are refused. Set under {@code this}. */
  private volatile boolean closed;
  /** Set once, by the first limit crossed; the close follows on the event loop. */
  private volatile boolean disconnecting;
  /** {@link System#nanoTime()} when the count went over the soft limit, 0 while it is under. */
  private volatile long overSoftSince;
  private final AtomicBoolean softCheckScheduled = new AtomicBoolean();

  OutputGuard(OutputLimits limits, String protocol, Supplier<String> client) {
    this.limits = limits;
    this.protocol = protocol;
    this.client = client;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    raiseLowWaterMark(ctx.channel().config());
    limits.opened(this);
  }

  /**
   * Keeps the channel's low-water mark over the soft limit. A protocol stops producing replies when
   * the channel goes over its high-water mark and goes on only once it drops under the low one; the
   * socket may take more of what is queued after the protocol stopped, so a client that never reads
   * can be left anywhere above the low mark. Above the soft limit too, it is disconnected after the
   * soft seconds; between a low mark under the soft limit and the soft limit, nothing would ever
   * disconnect it or produce more for it.
   */
  private void raiseLowWaterMark(ChannelConfig config) {
    long soft = limits.softBytes();
    WriteBufferWaterMark mark = config.getWriteBufferWaterMark();
    if (soft == 0 || soft >= Integer.MAX_VALUE / 2 || mark.low() > soft) {
      return;
    }
    int low = (int) soft + 1; // writable again only under it: a channel that is not holds more than soft
    int high = mark.high() > low ? mark.high() : low + (mark.high() - mark.low());
    config.setWriteBufferWaterMark(new WriteBufferWaterMark(low, high));
  }

  /** The channel drained under its low-water mark, the soft limit: that stops the soft limit's clock. */
  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (ctx.channel().isWritable()) {
      observeSoft(buffered());
    }
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    closeAccounting();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    closeAccounting();
    super.channelInactive(ctx);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    long n = sizeOf(msg);
    if (n == 0) {
      ctx.write(msg, promise);
      return;
    }
    long now = disconnecting ? -1 : buffered() + n;
    if (now < 0 || (limits.hardBytes() > 0 && now > limits.hardBytes())) {
      if (now >= 0) {
        disconnect("hard", limits.hardBytes(), now);
      }
      ReferenceCountUtil.release(msg);
      if (!promise.isVoid()) {
        promise.tryFailure(new ClosedChannelException());
      }
      return;
    }
    ctx.write(msg, promise);
    afterGrowth(now);
  }

  @Override
  public boolean tryReserve(long bytes) {
    if (disconnecting) {
      return false;
    }
    synchronized (this) {
      if (closed) {
        return false;
      }
      reserved += bytes;
    }
    long now = buffered();
    if (limits.hardBytes() > 0 && now > limits.hardBytes()) {
      release(bytes);
      disconnect("hard", limits.hardBytes(), now);
      return false;
    }
    afterGrowth(now);
    return !disconnecting;
  }

  @Override
  public void release(long bytes) {
    synchronized (this) {
      if (closed) {
        return;
      }
      reserved -= bytes;
    }
    observeSoft(buffered());
  }

  /** Bytes held now: Netty's pending writes of the channel plus reservations; 0 once closed. */
  @Override
  public long buffered() {
    if (closed) {
      return 0;
    }
    long r = reserved;
    ChannelHandlerContext c = ctx;
    ChannelOutboundBuffer out = c == null ? null : c.channel().unsafe().outboundBuffer();
    return r + (out == null ? 0 : out.totalPendingWriteBytes());
  }

  @Override
  public boolean mayResume(long lowWaterMark) {
    long now = buffered();
    if (now > Math.max(lowWaterMark, limits.softBytes())) {
      return false;
    }
    observeSoft(now);
    return true;
  }

  /**
   * Writes flushed towards the socket and not yet written (Netty's flushed messages; the replies of
   * the current loop turn, not yet flushed, are not among them): CLIENT LIST's {@code oll}. A
   * snapshot, read from any thread.
   */
  public int queuedWrites() {
    ChannelHandlerContext c = ctx;
    ChannelOutboundBuffer out = closed || c == null ? null : c.channel().unsafe().outboundBuffer();
    return out == null ? 0 : out.size();
  }

  boolean disconnecting() {
    return disconnecting;
  }

  /**
   * Closes the connection for going over the {@code kind} limit ({@code hard}, {@code soft} or
   * {@code total}) of {@code limit} bytes with {@code value} bytes; logs and counts it once.
   */
  void disconnect(String kind, long limit, long value) {
    if (disconnecting) {
      return;
    }
    disconnecting = true;
    long mine = buffered();
    Runnable close = () -> {
      limits.disconnected();
      String what = kind.equals("total")
          ? "all clients hold " + value + " bytes of replies, over client-output-buffer-total " + limit
              + "; this client holds the most, " + mine + " bytes"
          : "it holds " + value + " bytes of replies, over client-output-buffer-" + kind + "-limit " + limit
              + (kind.equals("soft") ? " for " + TimeUnit.NANOSECONDS.toSeconds(limits.softNanos()) + " s" : "");
      LOG.warn("closing {} client {}: {}", protocol, client.get(), what);
      ctx.close();
    };
    if (ctx.executor().inEventLoop()) {
      close.run();
    } else {
      ctx.executor().execute(close);
    }
  }

  private void afterGrowth(long now) {
    observeSoft(now);
    // Summing every client's bytes is only worth it when this one holds a fair share of the limit.
    if (limits.totalLimit() > 0 && now >= limits.totalCheckFrom() && limits.totalBuffered() > limits.totalLimit()) {
      limits.shed();
    }
  }

  /**
   * Starts, keeps or ends the soft-limit clock for a count of {@code now} bytes (-1: closed). A
   * worker's count may be stale by the time it lands here and end a clock the event loop had just
   * started; {@link #softCheck} then restarts it, so such a race delays a disconnection by at most
   * the soft seconds, never forever.
   */
  void observeSoft(long now) {
    long soft = limits.softBytes();
    if (soft == 0 || now < 0) {
      return;
    }
    if (now <= soft) {
      overSoftSince = 0;
      return;
    }
    if (overSoftSince == 0) {
      overSoftSince = System.nanoTime();
    }
    if (softCheckScheduled.compareAndSet(false, true)) {
      ctx.executor().schedule(this::softCheck, limits.softNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private void softCheck() {
    softCheckScheduled.set(false);
    long since = overSoftSince;
    long now = buffered();
    if (now <= limits.softBytes()) {
      overSoftSince = 0; // drained meanwhile, with no write to notice it
      return;
    }
    if (disconnecting || !ctx.channel().isActive()) {
      return;
    }
    if (since == 0) {
      // Over the limit with the clock stopped by a stale count: start it now, or no later write
      // (the writer waits for the client to drain) would ever start it again.
      since = System.nanoTime();
      overSoftSince = since;
    }
    long wait = since + limits.softNanos() - System.nanoTime();
    if (wait <= 0) {
      disconnect("soft", limits.softBytes(), now);
    } else if (softCheckScheduled.compareAndSet(false, true)) {
      ctx.executor().schedule(this::softCheck, wait, TimeUnit.NANOSECONDS);
    }
  }

  private void closeAccounting() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      reserved = 0;
    }
    limits.closed(this);
  }

  private static long sizeOf(Object msg) {
    if (msg instanceof ByteBuf b) {
      return b.readableBytes();
    }
    if (msg instanceof ByteBufHolder h) {
      return h.content().readableBytes();
    }
    if (msg instanceof FileRegion f) {
      return f.count();
    }
    return 0;
  }
}
