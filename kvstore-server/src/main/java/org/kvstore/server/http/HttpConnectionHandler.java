package org.kvstore.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.kvstore.server.output.OutputGuard;
import org.kvstore.server.output.ReplyBudget;

/**
 * One connection's requests, answered one at a time in order (HTTP/1.1 pipelining keeps its
 * order): a request runs on the event loop when it cannot block, else on a worker, and the next
 * one starts once its response is written. While a connection has a backlog of pipelined requests,
 * or its responses pass the write-buffer high-water mark because it does not read them, it stops
 * reading and answering (back-pressure); its output buffer limits
 * ({@link org.kvstore.server.output.OutputGuard}) then disconnect a client that stays so. A
 * streamed reply ({@link HttpReply#streamed}) is written by its worker while it is sent
 * ({@link HttpBodyStream}), and the next request starts once all of it was handed to the channel.
 *
 * <p>Thread safety: confined to the connection's event loop (worker results come back through it).
 */
final class HttpConnectionHandler extends ChannelInboundHandlerAdapter {
  /** Pipelined requests a connection may queue before the server stops reading from it. */
  private static final int MAX_QUEUED = 16;

  private final HttpService service;
  private final Executor workers;
  private final ArrayDeque<HttpService.Call> queue = new ArrayDeque<>();
  private boolean busy;
  private boolean closed;
  /** A response is written and the channel is not writable: the next request waits for it to drain. */
  private boolean waitingToWrite;
  /** The request line of the request running or answered last, for the log line of a disconnection. */
  private volatile String lastRequest = "";
  /** What the connection may still buffer of its responses: the channel's output guard. */
  private volatile ReplyBudget budget = ReplyBudget.UNLIMITED;

  HttpConnectionHandler(HttpService service, Executor workers) {
    this.service = service;
    this.workers = workers;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    OutputGuard guard = ctx.pipeline().get(OutputGuard.class);
    if (guard != null) {
      budget = guard;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request)) {
      ctx.fireChannelRead(msg);
      return;
    }
    DecoderResult result = request.decoderResult();
    if (result.isFailure()) {
      rejectMalformed(ctx, request, result.cause());
      return;
    }
    queue.add(new HttpService.Call(request, System.nanoTime()));
    if (queue.size() >= MAX_QUEUED) {
      ctx.channel().config().setAutoRead(false);
    }
    if (!busy) {
      next(ctx);
    }
  }

  private void rejectMalformed(ChannelHandlerContext ctx, FullHttpRequest request, Throwable cause) {
    HttpProblem p;
    if (cause instanceof TooLongHttpLineException) {
      p = new HttpProblem(ProblemCode.KEY_TOO_LARGE,
          "the request line is too long (a key in the path is at most max-key-bytes; use POST .../keys:get or .../batch for longer keys)");
    } else if (cause instanceof TooLongHttpHeaderException) {
      p = new HttpProblem(ProblemCode.HEADERS_TOO_LARGE, "the request headers are too large");
    } else if (cause instanceof TooLongFrameException) {
      p = new HttpProblem(ProblemCode.INVALID_ARGUMENT, "malformed request: " + cause.getMessage());
    } else {
      p = HttpProblem.invalid("malformed HTTP request: " + cause.getMessage());
    }
    FullHttpResponse response = service.problemResponse(p, null);
    request.release();
    closed = true;
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }

  private void next(ChannelHandlerContext ctx) {
    if (!ctx.channel().isWritable()) {
      // The client does not read its responses: answer nothing more (and read nothing more) until
      // the channel drains, so what it is sent stays near the write-buffer high-water mark.
      waitingToWrite = true;
      busy = true;
      ctx.channel().config().setAutoRead(false);
      return;
    }
    HttpService.Call call = queue.poll();
    if (call == null) {
      busy = false;
      ctx.channel().config().setAutoRead(true);
      return;
    }
    busy = true;
    lastRequest = call.request.method() + " " + call.request.uri();
    service.prepare(call);
    if (!call.offload) {
      service.run(call);
      assert call.reply.writer == null : "a streamed reply comes from a handler that runs on a worker";
      finish(ctx, call);
      return;
    }
    try {
      workers.execute(() -> {
        service.run(call);
        if (call.reply.writer != null) {
          stream(ctx, call);
        }
        ctx.channel().eventLoop().execute(() -> finish(ctx, call));
      });
    } catch (RejectedExecutionException shuttingDown) {
      call.reply = HttpReply.problem(new HttpProblem(ProblemCode.NOT_READY, "the server is shutting down"));
      finish(ctx, call);
    }
  }

  /** Writes the body of a streamed reply, on the worker that ran the call. */
  private void stream(ChannelHandlerContext ctx, HttpService.Call call) {
    boolean keepAlive = HttpUtil.isKeepAlive(call.request) && HttpService.chunked(call.request);
    HttpBodyStream out = new HttpBodyStream(ctx, budget, () -> service.head(call, keepAlive));
    service.stream(call, out, () -> describe(ctx.channel()));
  }

  private void finish(ChannelHandlerContext ctx, HttpService.Call call) {
    if (call.bodySent) {
      finishStreamed(ctx, call);
      return;
    }
    FullHttpRequest request = call.request;
    boolean keepAlive = HttpUtil.isKeepAlive(request) && !closed;
    FullHttpResponse response = service.respond(call, keepAlive);
    request.release();
    if (!ctx.channel().isActive()) {
      response.release();
      releaseQueued();
      return;
    }
    if (!keepAlive) {
      closed = true;
      releaseQueued();
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    ctx.writeAndFlush(response);
    next(ctx);
  }

  /** After a streamed reply was handed to the channel: the next request, or the end of the connection. */
  private void finishStreamed(ChannelHandlerContext ctx, HttpService.Call call) {
    service.recordStreamed(call);
    boolean keepAlive = HttpUtil.isKeepAlive(call.request) && HttpService.chunked(call.request) && !closed;
    call.request.release();
    if (!ctx.channel().isActive() || !call.bodyComplete) {
      // cut short: closing is how the client learns that the body is incomplete
      closed = true;
      releaseQueued();
      ctx.close();
      return;
    }
    if (!keepAlive) {
      closed = true;
      releaseQueued();
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    next(ctx);
  }

  private void releaseQueued() {
    for (HttpService.Call c; (c = queue.poll()) != null; ) {
      c.request.release();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (waitingToWrite && ctx.channel().isWritable()) {
      waitingToWrite = false;
      next(ctx);
    }
    ctx.fireChannelWritabilityChanged();
  }

  /** The client as a disconnection's log line names it: address and last request. */
  String describe(io.netty.channel.Channel ch) {
    String r = lastRequest;
    return "addr=" + ch.remoteAddress() + " request=" + (r.length() > 200 ? r.substring(0, 200) + "..." : r);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closed = true;
    if (!busy || waitingToWrite) {
      releaseQueued();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
