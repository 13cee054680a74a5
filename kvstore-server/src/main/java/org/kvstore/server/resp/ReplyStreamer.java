package org.kvstore.server.resp;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.kvstore.server.output.ReplyBudget;

/**
 * Sends the parts of a reply whose length is known before it is built (a large MGET) while the
 * command still builds it on a worker, so the client receives it as it is read and the server holds
 * about a write-buffer high-water mark of it, not all of it ({@link ReplyArrayBuilder}).
 *
 * <p>A part is written by the connection's event loop, which first gives back its reservation: the
 * channel's {@link org.kvstore.server.output.OutputGuard} counts it from then on. When the
 * connection holds more than {@link #PAUSE_BYTES}, the worker waits until it drains to
 * {@link #RESUME_BYTES}, or to the client's soft limit when that is higher
 * ({@link ReplyBudget#mayResume}). The count that starts a wait includes parts the event loop has
 * not written yet, and the socket may take some of them once it does, so what the client holds when
 * it stops reading can be anywhere below the mark; the worker never waits on a client under its soft
 * limit, so a client that does not read is disconnected by that limit, which ends the wait.
 *
 * <p>Thread safety: {@link #send} and {@link #abort} run on the command's worker; what they do to
 * the channel runs on its event loop.
 */
final class ReplyStreamer {
  /** The RESP write-buffer high-water mark: beyond it the command waits. */
  static final long PAUSE_BYTES = 1024 * 1024;
  /**
   * The low-water mark: the command goes on once the connection holds no more, or no more than the
   * client's soft limit.
   */
  static final long RESUME_BYTES = 256 * 1024;
  private static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final ChannelHandlerContext ctx;
  private final ReplyBudget budget;

  ReplyStreamer(ChannelHandlerContext ctx, ReplyBudget budget) {
    this.ctx = ctx;
    this.budget = budget;
  }

  /**
   * Sends {@code length} bytes of {@code part}, for which {@code reserved} bytes were reserved, after
   * what the connection was sent before. Returns false when the connection is closed or closing:
   * the command stops.
   */
  boolean send(byte[] part, int length, long reserved) {
    try {
      ctx.executor().execute(() -> {
        budget.release(reserved);
        if (ctx.channel().isActive()) {
          ctx.writeAndFlush(Unpooled.wrappedBuffer(part, 0, length), ctx.voidPromise());
        }
      });
    } catch (RejectedExecutionException e) {
      budget.release(reserved);
      return false;
    }
    // Never wait on the event loop itself: only it drains the channel.
    if (budget.buffered() > PAUSE_BYTES && !ctx.executor().inEventLoop()) {
      while (ctx.channel().isActive() && !budget.mayResume(RESUME_BYTES)) {
        LockSupport.parkNanos(WAIT_NANOS);
      }
    }
    return ctx.channel().isActive();
  }

  /** Closes the connection: a reply already partly sent cannot be followed by an error reply. */
  void abort() {
    ctx.channel().close();
  }
}
