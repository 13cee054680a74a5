package org.kvstore.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.kvstore.server.http.HttpRouter.Execution;
import org.kvstore.server.metrics.ServerMetrics;

/**
 * The routes for operators: {@code /health} ({@code /livez}) while the process runs,
 * {@code /ready} ({@code /readyz}) while the store is open and every protocol listens,
 * {@code /metrics} and {@code /v1/openapi.json}, the API's description, served from the jar.
 *
 * <p>Thread safety: thread-safe.
 */
final class OpsRoutes {
  /** Where the OpenAPI document is in the jar (the repository's source of truth). */
  static final String OPENAPI_RESOURCE = "/openapi.json";

  private final Map<String, BooleanSupplier> readiness;
  private final ServerMetrics metrics;
  private final byte[] openApi;

  /** {@code readiness}: each check by name ({@code storage}, {@code resp}, ...), in order. */
  OpsRoutes(Map<String, BooleanSupplier> readiness, ServerMetrics metrics) {
    this.readiness = readiness;
    this.metrics = metrics;
    this.openApi = openApiDocument();
  }

  static byte[] openApiDocument() {
    try (InputStream in = OpsRoutes.class.getResourceAsStream(OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(OPENAPI_RESOURCE + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void register(HttpRouter r) {
    for (String path : new String[] {"/health", "/livez"}) {
      r.add(HttpMethod.GET, path, "health.get", Execution.EVENT_LOOP, this::health);
    }
    for (String path : new String[] {"/ready", "/readyz"}) {
      r.add(HttpMethod.GET, path, "ready.get", Execution.EVENT_LOOP, this::ready);
    }
    r.add(HttpMethod.GET, "/metrics", "metrics.get", Execution.WORKER, this::metrics)
        .add(HttpMethod.GET, "/v1/openapi.json", "openapi.get", Execution.EVENT_LOOP, this::openApi);
  }

  HttpReply health(HttpExchange ex) {
    ObjectNode doc = HttpReply.object().put("status", "UP");
    return HttpReply.json(HttpResponseStatus.OK, doc);
  }

  HttpReply ready(HttpExchange ex) {
    ObjectNode doc = HttpReply.object();
    ObjectNode checks = HttpReply.object();
    boolean up = true;
    for (Map.Entry<String, BooleanSupplier> c : readiness.entrySet()) {
      boolean ok = c.getValue().getAsBoolean();
      checks.put(c.getKey(), ok ? "UP" : "DOWN");
      up &= ok;
    }
    doc.put("status", up ? "UP" : "DOWN");
    doc.set("checks", checks);
    return HttpReply.json(up ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, doc);
  }

  HttpReply metrics(HttpExchange ex) {
    return HttpReply.bytes(HttpResponseStatus.OK, metrics.scrape().getBytes(StandardCharsets.UTF_8),
        ServerMetrics.CONTENT_TYPE);
  }

  HttpReply openApi(HttpExchange ex) {
    return HttpReply.bytes(HttpResponseStatus.OK, openApi, HttpReply.JSON_TYPE);
  }
}
