package org.kvstore.server.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Collects a request's body, up to the largest value the store takes: a body announced larger by
 * {@code Content-Length} is refused with 413 {@code value_too_large} before any of it is read (also
 * when the client waits for {@code 100 Continue}), and a chunked body is cut off with the same 413
 * as soon as it grows past the limit. The connection is then closed, as the rest of the body would
 * have to be read to find the next request.
 *
 * <p>Thread safety: confined to the connection's event loop.
 */
final class HttpBodyLimit extends HttpObjectAggregator {
  private final HttpService service;
  private final int maxBytes;

  HttpBodyLimit(HttpService service, int maxBytes) {
    super(maxBytes, true);
    this.service = service;
    this.maxBytes = maxBytes;
  }

  @Override
  protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    if (HttpUtil.getContentLength(start, -1L) > maxBytes) {
      return tooLarge(start);
    }
    return super.newContinueResponse(start, maxContentLength, pipeline);
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    ctx.writeAndFlush(tooLarge(oversized)).addListener(ChannelFutureListener.CLOSE);
  }

  private Object tooLarge(HttpMessage m) {
    long announced = HttpUtil.getContentLength(m, -1L);
    String what = m instanceof HttpRequest r ? r.method() + " " + shortUri(r.uri()) + ": " : "";
    return service.problemResponse(new HttpProblem(ProblemCode.VALUE_TOO_LARGE,
        what + (announced >= 0 ? "a " + announced + "-byte body" : "the chunked body")
            + " exceeds the limit of " + maxBytes + " bytes"), m instanceof FullHttpRequest f ? f : null);
  }

  private static String shortUri(String uri) {
    return uri.length() > 200 ? uri.substring(0, 200) + "..." : uri;
  }
}
