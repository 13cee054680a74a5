package org.kvstore.bench.load.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * kvstore-server's HTTP API through {@link HttpClient} (HTTP/1.1, one client and so one keep-alive
 * connection per session): {@code GET}/{@code PUT /v1/dbs/default/tables/0/keys/{key}} (the table
 * RESP's database 0 uses), scans by {@code GET .../keys?start=&limit=}, atomic writes by
 * {@code POST .../batch}.
 *
 * <p>Thread safety: thread-safe; each session is confined to one thread.
 */
public final class HttpDriver implements Driver {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private final String base;

  public HttpDriver(String host, int port) {
    this.base = "http://" + host + ":" + port + "/v1/dbs/default/tables/0";
  }

  @Override
  public String name() {
    return "http";
  }

  @Override
  public Session openSession() {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(TIMEOUT).build();
    return new Session() {
      @Override
      public byte[] get(byte[] key) {
        HttpResponse<byte[]> r = send(HttpRequest.newBuilder(keyUri(key)).GET(), "GET", key);
        if (r.statusCode() == 404) {
          return null;
        }
        return expectOk(r, "GET", key).body();
      }

      @Override
      public void put(byte[] key, byte[] value) {
        expectOk(send(HttpRequest.newBuilder(keyUri(key)).PUT(HttpRequest.BodyPublishers.ofByteArray(value)),
            "PUT", key), "PUT", key);
      }

      @Override
      public int scan(byte[] from, int count) {
        String q = "?start=" + URLEncoder.encode(new String(from, StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8)
            + "&limit=" + count + "&values=true";
        HttpResponse<byte[]> r = expectOk(send(HttpRequest.newBuilder(URI.create(base + "/keys" + q)).GET(),
            "scan", from), "scan", from);
        try {
          return JSON.readTree(r.body()).path("items").size();
        } catch (IOException e) {
          throw new DriverException("http", "scan", from, e);
        }
      }

      @Override
      public void writeAtomically(List<byte[]> keys, List<byte[]> values) {
        ObjectNode body = JSON.createObjectNode().put("atomic", true);
        ArrayNode ops = body.putArray("ops");
        Base64.Encoder b64 = Base64.getEncoder();
        for (int i = 0; i < keys.size(); i++) {
          ops.addObject().put("op", "put").put("key_b64", b64.encodeToString(keys.get(i)))
              .put("value_b64", b64.encodeToString(values.get(i)));
        }
        byte[] json;
        try {
          json = JSON.writeValueAsBytes(body);
        } catch (IOException e) {
          throw new DriverException("http", "batch", keys.get(0), e);
        }
        expectOk(send(HttpRequest.newBuilder(URI.create(base + "/batch"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(json)), "batch", keys.get(0)), "batch", keys.get(0));
      }

      private HttpResponse<byte[]> send(HttpRequest.Builder b, String op, byte[] key) {
        try {
          return client.send(b.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
          throw new DriverException("http", op, key, e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new DriverException("http", op, key, e);
        }
      }

      @Override
      public void close() {
        // HttpClient has no close before JDK 21; its connection is dropped with it
      }
    };
  }

  private URI keyUri(byte[] key) {
    return URI.create(base + "/keys/"
        + URLEncoder.encode(new String(key, StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8).replace("+", "%20"));
  }

  private static HttpResponse<byte[]> expectOk(HttpResponse<byte[]> r, String op, byte[] key) {
    if (r.statusCode() / 100 != 2) {
      throw new DriverException("http", op, key,
          new IOException("status " + r.statusCode() + ": " + new String(r.body(), StandardCharsets.UTF_8)));
    }
    return r;
  }

  @Override
  public void close() {
    // sessions own the connections
  }
}
