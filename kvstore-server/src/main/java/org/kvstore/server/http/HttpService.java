package org.kvstore.server.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.kvstore.InvalidArgumentException;
import org.kvstore.cluster.ClusterDownException;
import org.kvstore.cluster.CrossSlotException;
import org.kvstore.cluster.NotLeaderException;
import org.kvstore.cluster.SlotMovedException;
import org.kvstore.KVStoreException;
import org.kvstore.NoSpaceException;
import org.kvstore.NoSuchDatabaseException;
import org.kvstore.NoSuchTableException;
import org.kvstore.PreconditionFailedException;
import org.kvstore.StoreClosedException;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.metrics.RequestRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every HTTP request goes through, shared by all connections: authentication, routing (404,
 * 405 with {@code Allow}, {@code OPTIONS}), choosing where the handler runs, turning exceptions into
 * problem documents, the headers every response carries ({@code X-Content-Type-Options: nosniff},
 * CORS when an origin is configured) and the request metrics.
 *
 * <pre>
 *   request ──▶ prepare (event loop: parse, auth, route) ──▶ run (event loop or worker)
 *           ──▶ respond (event loop: headers, metrics) ──▶ socket
 * </pre>
 *
 * <p>Thread safety: thread-safe.
 */
final class HttpService {
  private static final Logger LOG = LoggerFactory.getLogger(HttpService.class);
  private static final String CORS_HEADERS = "Authorization, Content-Type, If-Match, If-None-Match";
  private static final String CORS_EXPOSED = "ETag, Location, Link, Expires, " + KeyRoutes.TTL_HEADER;

  private final HttpRouter router;
  private final BearerAuth auth;
  private final Keyspace keyspace;
  private final HttpTables tables;
  /** The allowed CORS origin ({@code *} for any), or null: no CORS headers. */
  private final String corsOrigin;
  private final RequestRecorder recorder;
  private final int unmatched;

  HttpService(HttpRouter router, BearerAuth auth, HttpTables tables, String corsOrigin) {
    this.router = router;
    this.auth = auth;
    this.tables = tables;
    this.keyspace = tables.keyspace();
    this.corsOrigin = corsOrigin;
    java.util.List<String> commands = new java.util.ArrayList<>(router.commands());
    commands.add("unmatched");
    this.recorder = new RequestRecorder(commands);
    this.unmatched = recorder.id("unmatched");
  }

  RequestRecorder recorder() {
    return recorder;
  }

  HttpRouter router() {
    return router;
  }

  /** A request ready to run: its handler and where it runs, or a reply that is already known. */
  static final class Call {
    final FullHttpRequest request;
    final long arrivalNanos;
    final boolean head;
    HttpExchange exchange;
    HttpRouter.Endpoint endpoint;
    int command;
    HttpReply reply;
    boolean offload;
    /** A streamed reply's head and part of its body went out through its {@link HttpBodyStream}. */
    boolean bodySent;
    /** ... and all of its body. */
    boolean bodyComplete;

    Call(FullHttpRequest request, long arrivalNanos) {
      this.request = request;
      this.arrivalNanos = arrivalNanos;
      this.head = request.method().equals(HttpMethod.HEAD);
    }
  }

  /** Parses, authenticates and routes {@code call}; runs on the event loop. */
  void prepare(Call call) {
    call.command = unmatched;
    try {
      HttpExchange ex = new HttpExchange(call.request);
      call.exchange = ex;
      HttpRouter.Match match = router.match(ex.segments());
      if (call.request.method().equals(HttpMethod.OPTIONS)) {
        call.reply = HttpReply.empty(HttpResponseStatus.NO_CONTENT);
        if (match != null) {
          call.reply.header(HttpHeaderNames.ALLOW, match.route().allow());
          if (corsOrigin != null) {
            call.reply.header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS, match.route().allow())
                .header(HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS, CORS_HEADERS)
                .header(HttpHeaderNames.ACCESS_CONTROL_MAX_AGE, 600);
          }
        } else {
          throw new HttpProblem(ProblemCode.NOT_FOUND, "no resource at " + ex.rawPath());
        }
        return;
      }
      auth.check(ex);
      if (match == null) {
        throw new HttpProblem(ProblemCode.NOT_FOUND, "no resource at " + ex.rawPath()
            + "; see /v1/openapi.json for the API");
      }
      HttpMethod method = call.head ? HttpMethod.GET : call.request.method();
      HttpRouter.Endpoint endpoint = call.head && match.route().methods().containsKey(HttpMethod.HEAD)
          ? match.route().methods().get(HttpMethod.HEAD) : match.route().methods().get(method);
      if (endpoint == null) {
        throw new HttpProblem(ProblemCode.METHOD_NOT_ALLOWED, ProblemCode.METHOD_NOT_ALLOWED.status(),
            call.request.method().name() + " is not allowed on " + match.route().template(), Map.of(),
            Map.of("Allow", match.route().allow()));
      }
      ex.params(match.params());
      call.endpoint = endpoint;
      call.command = recorder.id(call.head && !match.route().methods().containsKey(HttpMethod.HEAD)
          ? endpoint.command().replaceAll("\\.get$", ".head") : endpoint.command());
      // On a cluster node every call may wait for Raft (a read's barrier, an election): off the loop.
      call.offload = keyspace.cluster() != null || switch (endpoint.execution()) {
        case EVENT_LOOP -> false;
        case WORKER -> true;
        case TABLE_WRITE -> writesWait(ex);
      };
    } catch (RuntimeException e) {
      call.reply = replyFor(e);
    }
  }

  /** Whether a write to the request's table waits for fsync (then it must leave the event loop). */
  private boolean writesWait(HttpExchange ex) {
    try {
      return keyspace.syncWrites(tables.table(ex));
    } catch (RuntimeException e) {
      return false; // the handler reports it, quickly
    }
  }

  /** Runs the handler of a prepared call (on the thread {@link Call#offload} chose). */
  void run(Call call) {
    if (call.reply != null) {
      return;
    }
    try {
      call.reply = call.endpoint.handler().handle(call.exchange);
    } catch (RuntimeException e) {
      call.reply = replyFor(e);
    }
  }

  /**
   * Whether a streamed response to {@code request} is chunked: not to an HTTP/1.0 client, which
   * does not know chunked transfer encoding; its body ends with the connection.
   */
  static boolean chunked(FullHttpRequest request) {
    return !request.protocolVersion().equals(HttpVersion.HTTP_1_0);
  }

  /**
   * Writes the body of the streamed reply of {@code call} to {@code out}, on the worker that ran it.
   * A body that fits in one part becomes the call's ordinary reply, as does an error before any of
   * it was sent; after that an error can only end the connection, and the client sees the body cut
   * short ({@code client} names it in the log line).
   */
  void stream(Call call, HttpBodyStream out, Supplier<String> client) {
    HttpReply reply = call.reply;
    try {
      reply.writer.writeTo(out);
      if (!out.started()) {
        call.reply = reply.withBody(out.unsent());
        return;
      }
      out.finish();
      call.bodyComplete = true;
    } catch (HttpBodyStream.ClientGoneException gone) {
      // closed by the client, or disconnected for its limits (the output guard logged and counted it)
    } catch (IOException | RuntimeException e) {
      if (!out.started()) {
        call.reply = replyFor(e instanceof RuntimeException r ? r : new IllegalStateException(e));
        return;
      }
      LOG.warn("HTTP response to {} failed after it began, closing the connection: {}", client.get(), e.toString());
    }
    call.bodySent = true;
  }

  /** The status line and headers of the streamed reply of {@code call}, sent before its body. */
  HttpResponse head(Call call, boolean keepAlive) {
    HttpReply reply = call.reply;
    HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, reply.status, reply.headers);
    addCommonHeaders(response, call.request, reply, keepAlive);
    return response;
  }

  /** Counts a call whose reply was streamed: {@link Call#bodySent}. */
  void recordStreamed(Call call) {
    recorder.record(call.command, call.bodyComplete, System.nanoTime() - call.arrivalNanos);
  }

  static HttpReply replyFor(RuntimeException e) {
    if (e instanceof HttpProblem p) {
      return HttpReply.problem(p);
    }
    if (e instanceof NoSuchDatabaseException n) {
      return HttpReply.problem(new HttpProblem(ProblemCode.DB_NOT_FOUND, n.getMessage()));
    }
    if (e instanceof NoSuchTableException n) {
      return HttpReply.problem(new HttpProblem(ProblemCode.TABLE_NOT_FOUND, n.getMessage()));
    }
    if (e instanceof InvalidArgumentException i) {
      return HttpReply.problem(HttpProblem.invalid(i.getMessage()));
    }
    if (e instanceof PreconditionFailedException p) {
      return HttpReply.problem(new HttpProblem(ProblemCode.PRECONDITION_FAILED, p.getMessage()));
    }
    if (e instanceof SlotMovedException m) {
      Map<String, Object> members = new LinkedHashMap<>();
      members.put("slot", m.slot());
      members.put("node", m.nodeId());
      if (m.endpoint() != null) {
        members.put("endpoint", m.endpoint());
      }
      return HttpReply.problem(new HttpProblem(ProblemCode.MOVED, ProblemCode.MOVED.status(), m.getMessage(), members,
          Map.of()));
    }
    if (e instanceof NotLeaderException n) {
      Map<String, Object> members = n.leaderId() == null ? Map.of() : Map.of("node", n.leaderId());
      return HttpReply.problem(new HttpProblem(ProblemCode.MOVED, ProblemCode.MOVED.status(), n.getMessage(), members,
          Map.of()));
    }
    if (e instanceof ClusterDownException d) {
      return HttpReply.problem(new HttpProblem(ProblemCode.CLUSTER_DOWN, ProblemCode.CLUSTER_DOWN.status(),
          d.getMessage(), Map.of("slot", d.slot()), Map.of()));
    }
    if (e instanceof CrossSlotException c) {
      return HttpReply.problem(new HttpProblem(ProblemCode.CROSS_SLOT, c.getMessage()));
    }
    if (e instanceof NoSpaceException n) {
      LOG.warn("HTTP write refused: {}", n.getMessage());
      return HttpReply.problem(new HttpProblem(ProblemCode.INSUFFICIENT_STORAGE, n.getMessage()));
    }
    if (e instanceof StoreClosedException c) {
      return HttpReply.problem(new HttpProblem(ProblemCode.NOT_READY, "the store is closed: " + c.getMessage()));
    }
    if (e instanceof KVStoreException k) {
      LOG.warn("HTTP request failed: {}", k.getMessage());
      return HttpReply.problem(new HttpProblem(ProblemCode.INTERNAL, k.getMessage()));
    }
    LOG.error("HTTP request failed unexpectedly", e);
    return HttpReply.problem(new HttpProblem(ProblemCode.INTERNAL,
        "internal error (" + e.getClass().getSimpleName() + "); see the server log"));
  }

  /** The response of a call that ran, with the common headers; counts it. */
  FullHttpResponse respond(Call call, boolean keepAlive) {
    HttpReply reply = call.reply;
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, reply.status,
        call.head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(reply.body), reply.headers,
        io.netty.handler.codec.http.EmptyHttpHeaders.INSTANCE);
    addCommonHeaders(response, call.request, reply, keepAlive);
    recorder.record(call.command, reply.status.code() < 400, System.nanoTime() - call.arrivalNanos);
    return response;
  }

  void addCommonHeaders(HttpResponse response, FullHttpRequest request, HttpReply reply, boolean keepAlive) {
    var h = response.headers();
    if (reply.writer != null) {
      if (request == null || chunked(request)) {
        h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      }
    } else if (reply.status.code() != 304 && reply.status.code() != 204) {
      h.set(HttpHeaderNames.CONTENT_LENGTH, reply.body.length);
    }
    h.set("X-Content-Type-Options", "nosniff");
    if (corsOrigin != null) {
      String origin = request == null ? null : request.headers().get(HttpHeaderNames.ORIGIN);
      if (corsOrigin.equals("*")) {
        h.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
      } else if (corsOrigin.equals(origin)) {
        h.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, corsOrigin);
        h.add(HttpHeaderNames.VARY, HttpHeaderNames.ORIGIN);
      }
      h.set(HttpHeaderNames.ACCESS_CONTROL_EXPOSE_HEADERS, CORS_EXPOSED);
    }
    if (!keepAlive) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (request != null && request.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
  }

  /** A problem response outside any route (bad request line, timeout, too many connections). */
  FullHttpResponse problemResponse(HttpProblem p, FullHttpRequest request) {
    HttpReply reply = HttpReply.problem(p);
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, reply.status,
        Unpooled.wrappedBuffer(reply.body), reply.headers, io.netty.handler.codec.http.EmptyHttpHeaders.INSTANCE);
    addCommonHeaders(response, request, reply, false);
    recorder.record(unmatched, false, 0);
    return response;
  }
}
