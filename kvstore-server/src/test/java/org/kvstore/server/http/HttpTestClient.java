package org.kvstore.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Java's {@link HttpClient} against one server: raw paths (already percent-encoded) and bodies. */
final class HttpTestClient {
  static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  HttpTestClient(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  HttpResponse<byte[]> send(String method, String rawPath, byte[] body, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + rawPath)).timeout(Duration.ofSeconds(20))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    try {
      return client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<byte[]> get(String rawPath, String... headers) {
    return send("GET", rawPath, null, headers);
  }

  HttpResponse<byte[]> put(String rawPath, String body, String... headers) {
    return send("PUT", rawPath, body == null ? null : body.getBytes(StandardCharsets.UTF_8), headers);
  }

  HttpResponse<byte[]> delete(String rawPath, String... headers) {
    return send("DELETE", rawPath, null, headers);
  }

  HttpResponse<byte[]> postJson(String rawPath, String json) {
    return send("POST", rawPath, json.getBytes(StandardCharsets.UTF_8), "Content-Type", "application/json");
  }

  static JsonNode json(HttpResponse<byte[]> r) {
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + new String(r.body(), StandardCharsets.UTF_8), e);
    }
  }

  static String text(HttpResponse<byte[]> r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }
}
