package org.kvstore.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.kvstore.server.output.ReplyBudget;

/**
 * The body of a {@link HttpReply#streamed} response as its writer produces it on a worker. Bytes
 * gather in parts of {@link #PART_BYTES}: a body that ends within its first part is answered whole,
 * with {@code Content-Length}, like any other response; a larger one is sent part by part with
 * chunked transfer encoding (to an HTTP/1.0 client without it, the end of the connection ending
 * the body) while the writer goes on, so the server holds about a write-buffer high-water mark of
 * it, not all of it.
 *
 * <p>Each part is reserved against the client's output budget before it is handed to the event
 * loop, which gives the reservation back as it writes the part (the channel's
 * {@link org.kvstore.server.output.OutputGuard} counts it from then on): a response over the
 * client's hard limit, or the server's total, disconnects the client with the same WARN line and
 * counter as any protocol's reply. When the client holds more than {@link #PAUSE_BYTES} the writer
 * waits until it drains to {@link #RESUME_BYTES}, or to the client's soft limit when that is higher
 * ({@link ReplyBudget#mayResume}): it never waits on a client under its soft limit, so a client
 * that does not read is disconnected by that limit, which ends the wait. Once the client is gone or
 * being disconnected every write throws {@link ClientGoneException}, which stops the writer.
 *
 * <p>Thread safety: confined to the worker writing the body; what it does to the channel runs on
 * the channel's event loop.
 */
final class HttpBodyStream extends OutputStream {
  static final int PART_BYTES = 64 * 1024;
  /** The HTTP write-buffer high-water mark: beyond it the writer waits. */
  static final long PAUSE_BYTES = 1024 * 1024;
  /**
   * The low-water mark: the writer goes on once the client holds no more, or no more than its soft
   * limit.
   */
  static final long RESUME_BYTES = 256 * 1024;
  /** A chunk's size line and the CRLF after its data, at most. */
  private static final int CHUNK_FRAMING = 16;
  private static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** The client is gone or being disconnected for its output buffer limits: the body stops. */
  static final class ClientGoneException extends IOException {
    ClientGoneException() {
      super("the client is gone or over its output buffer limits");
    }
  }

  private final ChannelHandlerContext ctx;
  private final ReplyBudget budget;
  private final Supplier<HttpResponse> head;
  private byte[] part = new byte[PART_BYTES];
  private int length;
  private boolean started;
  private boolean gone;

  /**
   * {@code head}: the response's status line and headers, taken when the first part is sent (they
   * announce chunked transfer encoding or the close).
   */
  HttpBodyStream(ChannelHandlerContext ctx, ReplyBudget budget, Supplier<HttpResponse> head) {
    this.ctx = ctx;
    this.budget = budget;
    this.head = head;
  }

  @Override
  public void write(int b) throws IOException {
    if (length == part.length) {
      sendPart();
    }
    part[length++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      if (length == part.length) {
        sendPart();
      }
      int n = Math.min(len, part.length - length);
      System.arraycopy(b, off, part, length, n);
      off += n;
      len -= n;
      length += n;
    }
  }

  /** Sends nothing: parts go when they are full, so a writer's flushes make no small chunks. */
  @Override
  public void flush() {}

  /** Whether the head and part of the body were sent: the response can no longer change. */
  boolean started() {
    return started;
  }

  /** The whole body, when none of it was sent. */
  byte[] unsent() {
    assert !started;
    return Arrays.copyOf(part, length);
  }

  /** Sends the rest of a started body and its end. */
  void finish() throws IOException {
    assert started;
    byte[] p = part;
    int n = length;
    part = null;
    length = 0;
    send(new DefaultLastHttpContent(Unpooled.wrappedBuffer(p, 0, n)), n + 2L * CHUNK_FRAMING);
  }

  private void sendPart() throws IOException {
    if (!started) {
      started = true;
      HttpResponse h = head.get();
      execute(() -> ctx.write(h, ctx.voidPromise()), 0, h);
    }
    byte[] p = part;
    int n = length;
    part = new byte[PART_BYTES];
    length = 0;
    send(new DefaultHttpContent(Unpooled.wrappedBuffer(p, 0, n)), n + (long) CHUNK_FRAMING);
  }

  /** Hands {@code msg} to the event loop, reserving {@code bytes} until it is written; waits while the client holds too much. */
  private void send(HttpObject msg, long bytes) throws IOException {
    if (gone || !budget.tryReserve(bytes)) {
      gone = true;
      ReferenceCountUtil.release(msg);
      throw new ClientGoneException();
    }
    execute(() -> {
      budget.release(bytes);
      if (ctx.channel().isActive()) {
        ctx.writeAndFlush(msg, ctx.voidPromise());
      } else {
        ReferenceCountUtil.release(msg);
      }
    }, bytes, msg);
    if (budget.buffered() > PAUSE_BYTES) {
      while (ctx.channel().isActive() && !budget.mayResume(RESUME_BYTES)) {
        LockSupport.parkNanos(WAIT_NANOS);
      }
    }
    if (!ctx.channel().isActive()) {
      gone = true;
      throw new ClientGoneException();
    }
  }

  private void execute(Runnable task, long reserved, Object msg) throws ClientGoneException {
    try {
      ctx.executor().execute(task);
    } catch (RejectedExecutionException shuttingDown) {
      budget.release(reserved);
      ReferenceCountUtil.release(msg);
      gone = true;
      throw new ClientGoneException();
    }
  }
}
