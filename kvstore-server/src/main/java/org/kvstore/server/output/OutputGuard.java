package org.kvstore.server.output;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the reply bytes one connection holds and disconnects it when they go over its
 * {@link OutputLimits}. It sits next to the socket in the channel's pipeline, so it sees every
 * encoded byte the protocol writes: a write adds its size, the write's completion (the bytes went to
 * the socket, or the channel closed) takes it off. That count is what Netty's
 * {@code ChannelOutboundBuffer} holds for the channel, plus what a command building a large reply has
 * reserved ({@link ReplyBudget}).
 *
 * <pre>
 *  handler ──write──▶ OutputGuard ──▶ ChannelOutboundBuffer ──▶ socket
 *                      +size            (completion) −size
 *                      over hard: drop the write, close
 *                      over soft: close if still over after soft-seconds
 *                      server total over its limit: OutputLimits.shed() closes the largest
 * </pre>
 *
 * <p>The protocols pause producing replies while the channel is not writable (its write-buffer
 * high-water mark), so a client that stops reading is held at about that mark: the soft limit,
 * which defaults to it, is what disconnects such a client; the hard limit stops a single reply
 * that is too large.
 *
 * <p>Thread safety: writes, completions and the soft-limit timer run on the channel's event loop;
 * {@link #tryReserve}, {@link #release} and {@link #disconnect} may be called from any thread. The
 * byte count is guarded by {@code this}.
 */
public final class OutputGuard extends ChannelDuplexHandler implements ReplyBudget {
  private static final Logger LOG = LoggerFactory.getLogger(OutputGuard.class);

  private final OutputLimits limits;
  private final String protocol;
  private final Supplier<String> client;
  private ChannelHandlerContext ctx;
  /** Bytes held: queued in the channel plus reserved by a reply builder. Guarded by {@code this}. */
  private long held;
  /** The channel closed: the count is off the total, later completions and releases are ignored. */
  private boolean closed;
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
    limits.opened(this);
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
    long now = disconnecting ? -1 : change(n);
    if (now < 0 || (limits.hardBytes() > 0 && now > limits.hardBytes())) {
      if (now >= 0) {
        change(-n);
        disconnect("hard", limits.hardBytes(), now);
      }
      ReferenceCountUtil.release(msg);
      if (!promise.isVoid()) {
        promise.tryFailure(new ClosedChannelException());
      }
      return;
    }
    boolean fireFailure = promise.isVoid();
    ChannelPromise p = fireFailure ? ctx.newPromise() : promise;
    p.addListener(f -> {
      observeSoft(change(-n));
      if (fireFailure && !f.isSuccess() && ctx.channel().isActive()) {
        ctx.fireExceptionCaught(f.cause());
      }
    });
    ctx.write(msg, p);
    afterGrowth(now);
  }

  @Override
  public boolean tryReserve(long bytes) {
    if (disconnecting) {
      return false;
    }
    long now = change(bytes);
    if (now < 0) {
      return false;
    }
    if (limits.hardBytes() > 0 && now > limits.hardBytes()) {
      change(-bytes);
      disconnect("hard", limits.hardBytes(), now);
      return false;
    }
    afterGrowth(now);
    return !disconnecting;
  }

  @Override
  public void release(long bytes) {
    observeSoft(change(-bytes));
  }

  @Override
  public synchronized long buffered() {
    return held;
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
    if (limits.totalLimit() > 0 && limits.totalBuffered() > limits.totalLimit()) {
      limits.shed();
    }
  }

  /** Starts, keeps or ends the soft-limit clock for a count of {@code now} bytes (-1: closed). */
  private void observeSoft(long now) {
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
    if (disconnecting || since == 0 || now <= limits.softBytes() || !ctx.channel().isActive()) {
      return;
    }
    long wait = since + limits.softNanos() - System.nanoTime();
    if (wait <= 0) {
      disconnect("soft", limits.softBytes(), now);
    } else if (softCheckScheduled.compareAndSet(false, true)) {
      ctx.executor().schedule(this::softCheck, wait, TimeUnit.NANOSECONDS);
    }
  }

  /** Adds {@code delta} to the count and the server's total; the new count, or -1 once closed. */
  private synchronized long change(long delta) {
    if (closed) {
      return -1;
    }
    held += delta;
    limits.add(delta);
    return held;
  }

  private synchronized void closeAccounting() {
    if (!closed) {
      closed = true;
      limits.add(-held);
      held = 0;
      limits.closed(this);
    }
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
