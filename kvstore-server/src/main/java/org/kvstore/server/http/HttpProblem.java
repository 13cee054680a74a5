package org.kvstore.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * An HTTP request is answered with a problem document (RFC 9457): thrown by the route handlers,
 * turned into the response by {@link HttpReply#problem}. Not a fault of the server, so it carries
 * no stack trace.
 *
 * <p>Thread safety: immutable.
 */
final class HttpProblem extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ProblemCode code;
  private final HttpResponseStatus status;
  /** Extra members of the document (e.g. the failing op's {@code index}) and headers ({@code Allow}). */
  private final transient Map<String, Object> members;
  private final transient Map<String, String> headers;

  HttpProblem(ProblemCode code, String detail) {
    this(code, code.status(), detail, Map.of(), Map.of());
  }

  HttpProblem(ProblemCode code, HttpResponseStatus status, String detail, Map<String, Object> members,
      Map<String, String> headers) {
    super(detail, null, false, false);
    this.code = code;
    this.status = status;
    this.members = Map.copyOf(members);
    this.headers = Map.copyOf(headers);
  }

  static HttpProblem invalid(String detail) {
    return new HttpProblem(ProblemCode.INVALID_ARGUMENT, detail);
  }

  ProblemCode code() {
    return code;
  }

  HttpResponseStatus status() {
    return status;
  }

  String detail() {
    return getMessage();
  }

  Map<String, Object> members() {
    return members;
  }

  Map<String, String> headers() {
    return headers;
  }
}
