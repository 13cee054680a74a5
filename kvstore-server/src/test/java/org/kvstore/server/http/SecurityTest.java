package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;

/** --password (Bearer), nosniff and --http-cors-origin. */
class SecurityTest {
  static final String ORIGIN = "https://app.example.com";

  @TempDir static Path dir;
  static KVStoreServer server;
  static HttpTestClient http;

  @BeforeAll
  static void start() {
    server = KVStoreServer.start(HttpServers.config(dir).set("password", "s3cret")
        .set("http-cors-origin", ORIGIN).build());
    http = new HttpTestClient(server.httpPort());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void noCredentials_unauthorizedExceptProbes() {
    HttpResponse<byte[]> r = http.get("/v1/dbs");
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
    assertThat(HttpTestClient.json(r).get("code").asText()).isEqualTo("unauthorized");
    assertThat(http.get("/metrics").statusCode()).isEqualTo(401);
    assertThat(http.put("/v1/dbs/default/tables/0/keys/k", "v").statusCode()).isEqualTo(401);
    assertThat(server.store().get("default", "0", "k")).isNull();
    assertThat(http.get("/health").statusCode()).isEqualTo(200);
    assertThat(http.get("/ready").statusCode()).isEqualTo(200);
  }

  @Test
  void wrongBearer_unauthorized() {
    assertThat(http.get("/v1/dbs", "Authorization", "Bearer s3cre").statusCode()).isEqualTo(401);
    assertThat(http.get("/v1/dbs", "Authorization", "Bearer s3cret ").statusCode()).isEqualTo(200);
    assertThat(http.get("/v1/dbs", "Authorization", "Token s3cret").statusCode()).isEqualTo(401);
  }

  @Test
  void bearerOrBasic_authorized() {
    assertThat(http.get("/v1/dbs", "Authorization", "Bearer s3cret").statusCode()).isEqualTo(200);
    String basic = Base64.getEncoder().encodeToString("any:s3cret".getBytes(StandardCharsets.UTF_8));
    assertThat(http.get("/v1/dbs", "Authorization", "Basic " + basic).statusCode()).isEqualTo(200);
  }

  @Test
  void value_servedWithNosniffAndCorsForTheOrigin() {
    http.put("/v1/dbs/default/tables/0/keys/page", "<script>alert(1)</script>", "Authorization", "Bearer s3cret");
    HttpResponse<byte[]> r = http.get("/v1/dbs/default/tables/0/keys/page", "Authorization", "Bearer s3cret",
        "Origin", ORIGIN);
    assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
    assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ORIGIN);
    assertThat(r.headers().firstValue("Access-Control-Expose-Headers")).hasValueSatisfying(v -> assertThat(v).contains("ETag"));
    HttpResponse<byte[]> other = http.get("/health", "Origin", "https://evil.example");
    assertThat(other.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
  }

  @Test
  void preflight_allowsMethodsWithoutCredentials() {
    HttpResponse<byte[]> r = http.send("OPTIONS", "/v1/dbs/default/tables/0/keys/x", null, "Origin", ORIGIN,
        "Access-Control-Request-Method", "PUT");
    assertThat(r.statusCode()).isEqualTo(204);
    assertThat(r.headers().firstValue("Access-Control-Allow-Methods")).hasValueSatisfying(v -> assertThat(v).contains("PUT"));
    assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ORIGIN);
  }
}
