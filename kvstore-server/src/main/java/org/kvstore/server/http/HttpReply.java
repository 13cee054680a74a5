package org.kvstore.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

/**
 * A response before it is encoded: status, headers and body bytes, or a {@link BodyWriter} that
 * writes a body too large to build in memory while it is sent ({@link HttpBodyStream}). The
 * dispatcher adds the headers every response has ({@code Content-Length}, {@code X-Content-Type-Options},
 * CORS, keep-alive).
 *
 * <p>Thread safety: confined (built by one handler, then handed to the event loop).
 */
final class HttpReply {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String JSON_TYPE = "application/json; charset=utf-8";
  static final String PROBLEM_TYPE = "application/problem+json";
  static final String OCTETS = "application/octet-stream";
  private static final byte[] NO_BODY = new byte[0];

  final HttpResponseStatus status;
  final HttpHeaders headers = new DefaultHttpHeaders(false);
  final byte[] body;
  /** Writes the body in pieces instead of {@link #body} (which is then empty), or null. */
  final BodyWriter writer;
  /** Whether {@link #body} is only announced ({@code HEAD}): its length is sent, its bytes are not. */
  boolean headOnly;

  /** Writes a response body, on a worker, to a stream that sends it as it fills. */
  @FunctionalInterface
  interface BodyWriter {
    /**
     * Writes the whole body to {@code out} (it need not flush or close it). An {@link IOException}
     * from {@code out} means the client is gone or being disconnected: stop and let it through.
     */
    void writeTo(OutputStream out) throws IOException;
  }

  HttpReply(HttpResponseStatus status, byte[] body) {
    this(status, body, null);
  }

  private HttpReply(HttpResponseStatus status, byte[] body, BodyWriter writer) {
    this.status = status;
    this.body = body;
    this.writer = writer;
  }

  static HttpReply empty(HttpResponseStatus status) {
    return new HttpReply(status, NO_BODY);
  }

  static HttpReply bytes(HttpResponseStatus status, byte[] body, String contentType) {
    HttpReply r = new HttpReply(status, body);
    r.headers.set(HttpHeaderNames.CONTENT_TYPE, contentType);
    return r;
  }

  /**
   * A response whose body {@code writer} writes while it is sent: in one piece with
   * {@code Content-Length} when it is small, else with chunked transfer encoding, held to the
   * client's output buffer limits as it goes ({@link HttpBodyStream}). Only for handlers that run on
   * a worker, and not for {@code HEAD}.
   */
  static HttpReply streamed(HttpResponseStatus status, String contentType, BodyWriter writer) {
    HttpReply r = new HttpReply(status, NO_BODY, writer);
    r.headers.set(HttpHeaderNames.CONTENT_TYPE, contentType);
    return r;
  }

  static HttpReply json(HttpResponseStatus status, Object tree) {
    return bytes(status, write(tree), JSON_TYPE);
  }

  static ObjectNode object() {
    return JSON.createObjectNode();
  }

  /** The problem document of {@code p}, with its headers. */
  static HttpReply problem(HttpProblem p) {
    ObjectNode doc = object();
    doc.put("type", p.code().type());
    doc.put("title", p.code().title());
    doc.put("status", p.status().code());
    doc.put("detail", p.detail());
    doc.put("code", p.code().code());
    for (Map.Entry<String, Object> m : p.members().entrySet()) {
      doc.set(m.getKey(), JSON.valueToTree(m.getValue()));
    }
    HttpReply r = bytes(p.status(), write(doc), PROBLEM_TYPE);
    p.headers().forEach(r.headers::set);
    return r;
  }

  /** This reply with {@code body} in place of its writer: the same status and headers. */
  HttpReply withBody(byte[] body) {
    HttpReply r = new HttpReply(status, body);
    r.headers.set(headers);
    return r;
  }

  HttpReply header(CharSequence name, Object value) {
    headers.set(name, value);
    return this;
  }

  /** The JSON text, with a final newline (so that a terminal shows curl's prompt on a line of its own). */
  private static byte[] write(Object tree) {
    try {
      byte[] json = JSON.writeValueAsBytes(tree);
      byte[] out = java.util.Arrays.copyOf(json, json.length + 1);
      out[json.length] = '\n';
      return out;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }
}
