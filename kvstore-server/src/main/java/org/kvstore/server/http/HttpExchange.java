package org.kvstore.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.kvstore.server.command.Catalog;

/**
 * One request as the route handlers see it: method, the raw (still percent-encoded) path segments,
 * path parameters and query parameters, headers and body, with the decoding and validation every
 * route shares. Errors are {@link HttpProblem}s naming the argument.
 *
 * <p>Thread safety: confined to the thread handling the request.
 */
final class HttpExchange {
  private final FullHttpRequest request;
  private final String rawPath;
  private final String rawQuery;
  private final Map<String, String> query;
  private Map<String, String> params = Map.of();

  HttpExchange(FullHttpRequest request) {
    this.request = request;
    String uri = request.uri();
    int q = uri.indexOf('?');
    int hash = uri.indexOf('#');
    String path = q < 0 ? (hash < 0 ? uri : uri.substring(0, hash)) : uri.substring(0, q);
    this.rawPath = path;
    this.rawQuery = q < 0 ? "" : uri.substring(q + 1, hash > q ? hash : uri.length());
    this.query = parseQuery(rawQuery);
  }

  private static Map<String, String> parseQuery(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = PercentCoding.decodeText(eq < 0 ? pair : pair.substring(0, eq), "query parameter name");
      if (name == null) {
        throw HttpProblem.invalid("a query parameter name is not UTF-8");
      }
      out.putIfAbsent(name, eq < 0 ? "" : pair.substring(eq + 1));
    }
    return out;
  }

  HttpMethod method() {
    return request.method();
  }

  String rawPath() {
    return rawPath;
  }

  String rawQuery() {
    return rawQuery;
  }

  void params(Map<String, String> params) {
    this.params = params;
  }

  String header(CharSequence name) {
    return request.headers().get(name);
  }

  /** A database or table name from path parameter {@code param}. */
  String name(String param) {
    String text = PercentCoding.decodeText(params.get(param), param);
    if (!Catalog.validName(text)) {
      throw HttpProblem.invalid(param + " name '" + (text == null ? "(not UTF-8)" : text)
          + "' is invalid: 1 to 128 of A-Z a-z 0-9 _ . - , not starting with . or -");
    }
    return text;
  }

  /** The bytes of path parameter {@code param}. */
  byte[] bytesParam(String param) {
    return PercentCoding.decode(params.get(param), false, param);
  }

  /** Query parameter {@code name} as bytes, or null when absent. */
  byte[] queryBytes(String name) {
    String raw = query.get(name);
    return raw == null ? null : PercentCoding.decode(raw, true, name);
  }

  /** Query parameter {@code name} as text, or null when absent. */
  String queryText(String name) {
    byte[] b = queryBytes(name);
    if (b == null) {
      return null;
    }
    String s = PercentCoding.utf8(b);
    if (s == null) {
      throw HttpProblem.invalid(name + " must be UTF-8 text");
    }
    return s;
  }

  long queryLong(String name, long defaultValue, long min, long max) {
    String s = queryText(name);
    if (s == null) {
      return defaultValue;
    }
    try {
      long v = Long.parseLong(s.trim());
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw HttpProblem.invalid(name + " must be an integer from " + min + " to " + max + ", was '" + s + "'");
  }

  boolean queryBool(String name) {
    String s = queryText(name);
    if (s == null) {
      return false;
    }
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "", "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default -> throw HttpProblem.invalid(name + " must be true or false, was '" + s + "'");
    };
  }

  /** The query parameters, decoded names to raw values (for links to the next page). */
  Map<String, String> rawQueryParams() {
    return query;
  }

  /** The body's bytes (a copy the caller owns). */
  byte[] body() {
    return ByteBufUtil.getBytes(request.content());
  }

  boolean hasBody() {
    return request.content().isReadable();
  }

  /**
   * The body as JSON. It must be labelled JSON ({@code application/json} or {@code +json}) or not
   * labelled at all.
   *
   * @throws HttpProblem 415 for another content type, 400 for malformed JSON
   */
  JsonNode json() {
    String type = header(HttpHeaderNames.CONTENT_TYPE);
    if (type != null) {
      String t = type.toLowerCase(Locale.ROOT).split(";", 2)[0].trim();
      if (!t.equals("application/json") && !t.endsWith("+json")) {
        throw new HttpProblem(ProblemCode.UNSUPPORTED_MEDIA_TYPE,
            "the body must be application/json, was " + type);
      }
    }
    try {
      JsonNode node = HttpReply.JSON.readTree(body());
      if (node == null || node.isMissingNode()) {
        throw HttpProblem.invalid("the body must be a JSON document, was empty");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw HttpProblem.invalid("malformed JSON body: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw HttpProblem.invalid("unreadable JSON body: " + e.getMessage());
    }
  }

  /** The segments of the raw path: "/v1/dbs/a" is ["v1", "dbs", "a"]. */
  List<String> segments() {
    String p = rawPath.startsWith("/") ? rawPath.substring(1) : rawPath;
    return List.of(p.split("/", -1));
  }
}
