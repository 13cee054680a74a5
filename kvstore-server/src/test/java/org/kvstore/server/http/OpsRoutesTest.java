package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;
import redis.clients.jedis.Jedis;

/** /health, /ready, /metrics (with RESP's requests in it) and /v1/openapi.json. */
class OpsRoutesTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static HttpTestClient http;

  @BeforeAll
  static void start() {
    server = HttpServers.start(dir);
    http = new HttpTestClient(server.httpPort());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void health_up() {
    for (String path : new String[] {"/health", "/livez"}) {
      HttpResponse<byte[]> r = http.get(path);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(HttpTestClient.json(r).get("status").asText()).isEqualTo("UP");
    }
  }

  @Test
  void ready_everyCheckUp() {
    HttpResponse<byte[]> r = http.get("/ready");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode doc = HttpTestClient.json(r);
    assertThat(doc.get("status").asText()).isEqualTo("UP");
    assertThat(doc.get("checks").get("storage").asText()).isEqualTo("UP");
    assertThat(doc.get("checks").get("resp").asText()).isEqualTo("UP");
    assertThat(doc.get("checks").get("http").asText()).isEqualTo("UP");
    assertThat(http.get("/readyz").statusCode()).isEqualTo(200);
  }

  @Test
  void metrics_prometheusTextWithRespHttpAndStoreSeries() {
    try (Jedis j = new Jedis("127.0.0.1", server.respPort())) {
      j.set("m1", "v");
      j.get("m1");
      j.get("m1");
    }
    http.get("/v1/dbs/default/tables/0/keys/m1");
    HttpResponse<byte[]> r = http.get("/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    String text = HttpTestClient.text(r);
    assertThat(text)
        .contains("kv_requests_total{command=\"get\",protocol=\"resp\",result=\"ok\"} 2.0")
        .contains("kv_requests_total{command=\"key.get\",protocol=\"http\",result=\"ok\"} 1.0")
        .contains("kv_request_duration_seconds_bucket{command=\"get\",protocol=\"resp\",le=\"+Inf\"} 2")
        .contains("kv_request_duration_seconds_count{command=\"set\",protocol=\"resp\"} 1")
        .contains("kv_connections{protocol=\"http\"}")
        .contains("kv_connections_accepted_total{protocol=\"resp\"}")
        .contains("kv_network_bytes_total{direction=\"in\",protocol=\"resp\"}")
        .contains("kv_keys{db=\"default\",table=\"0\"} 1.0")
        .contains("kv_storage_bytes{db=\"default\",table=\"0\"}")
        .contains("jvm_memory_used_bytes")
        .contains("jvm_gc_memory_allocated_bytes_total")
        .contains("process_start_time_seconds")
        .endsWith("\n");
  }

  @Test
  void openapi_servedFromJar() {
    HttpResponse<byte[]> r = http.get("/v1/openapi.json");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(HttpTestClient.json(r).get("openapi").asText()).startsWith("3.");
  }
}
