package org.kvstore.server.http;

import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The routes: path templates (the same text as the OpenAPI document's paths, e.g.
 * {@code /v1/dbs/{db}/tables/{table}/keys/{key}}) with a handler per method. A template's
 * {@code {name}} matches exactly one raw path segment, so a percent-encoded {@code %2F} stays
 * inside its key. {@code HEAD} is answered by the {@code GET} handler without the body unless a
 * route has its own.
 *
 * <p>Thread safety: immutable after construction.
 */
final class HttpRouter {

  /** A handler of one method of one route. */
  @FunctionalInterface
  interface Handler {
    HttpReply handle(HttpExchange exchange);
  }

  /** Where a handler runs. */
  enum Execution {
    /** On the connection's event loop: in-memory work that cannot block (a point read). */
    EVENT_LOOP,
    /** On the event loop unless the route's table waits for fsync on writes; then on a worker. */
    TABLE_WRITE,
    /** On a worker thread: scans, catalog changes, batches. */
    WORKER
  }

  record Endpoint(String command, Handler handler, Execution execution) {}

  /** One path template and its methods. */
  record Route(String template, List<String> segments, Map<HttpMethod, Endpoint> methods) {
    /** The Allow header's value. */
    String allow() {
      TreeSet<String> names = new TreeSet<>();
      for (HttpMethod m : methods.keySet()) {
        names.add(m.name());
      }
      if (methods.containsKey(HttpMethod.GET)) {
        names.add("HEAD");
      }
      names.add("OPTIONS");
      return String.join(", ", names);
    }
  }

  /** A matched route, with its path parameters still percent-encoded. */
  record Match(Route route, Map<String, String> params) {}

  private final List<Route> routes = new ArrayList<>();
  private final Map<String, Map<HttpMethod, Endpoint>> building = new LinkedHashMap<>();

  /** Adds {@code method} of {@code template}; {@code command} names it in metrics. */
  HttpRouter add(HttpMethod method, String template, String command, Execution execution, Handler handler) {
    building.computeIfAbsent(template, t -> new LinkedHashMap<>())
        .put(method, new Endpoint(command, handler, execution));
    return this;
  }

  /** Ends construction. */
  HttpRouter build() {
    for (Map.Entry<String, Map<HttpMethod, Endpoint>> e : building.entrySet()) {
      String t = e.getKey();
      routes.add(new Route(t, List.of(t.substring(1).split("/", -1)), Collections.unmodifiableMap(e.getValue())));
    }
    return this;
  }

  List<Route> routes() {
    return Collections.unmodifiableList(routes);
  }

  /** The route whose template matches {@code segments}, or null. */
  Match match(List<String> segments) {
    for (Route r : routes) {
      if (r.segments().size() != segments.size()) {
        continue;
      }
      Map<String, String> params = new HashMap<>();
      boolean ok = true;
      for (int i = 0; i < segments.size() && ok; i++) {
        String t = r.segments().get(i);
        if (t.startsWith("{") && t.endsWith("}")) {
          params.put(t.substring(1, t.length() - 1), segments.get(i));
        } else {
          ok = t.equals(segments.get(i));
        }
      }
      if (ok) {
        return new Match(r, params);
      }
    }
    return null;
  }

  /** Every metrics command name, in route order. */
  List<String> commands() {
    List<String> out = new ArrayList<>();
    for (Route r : routes) {
      for (Endpoint e : r.methods().values()) {
        out.add(e.command());
        if (e.command().endsWith(".get") && !r.methods().containsKey(HttpMethod.HEAD)) {
          out.add(e.command().substring(0, e.command().length() - 4) + ".head");
        }
      }
    }
    return out;
  }
}
