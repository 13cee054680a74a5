package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvstore.server.KVStoreServer;

/** The single-key routes through Java's HttpClient. */
class KeyRoutesTest {
  static final String T = "/v1/dbs/default/tables/0/keys/";

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

  static byte[] stored(String key) {
    return server.store().get("default", "0", key.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void put_newKey_created() {
    HttpResponse<byte[]> r = http.put(T + "new1", "v1");
    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(r.headers().firstValue("ETag")).hasValueSatisfying(e -> assertThat(e).matches("\"[0-9]+\""));
    assertThat(r.headers().firstValue("Location")).hasValue(T + "new1");
  }

  @Test
  void put_existingKey_noContentWithNewEtag() {
    String first = http.put(T + "rep", "a").headers().firstValue("ETag").orElseThrow();
    HttpResponse<byte[]> r = http.put(T + "rep", "b");
    assertThat(r.statusCode()).isEqualTo(204);
    assertThat(r.headers().firstValue("ETag")).isPresent().get().isNotEqualTo(first);
  }

  @Test
  void get_existingKey_rawBytesWithEtagAndLength() {
    byte[] value = {0, 1, (byte) 0xFF, '\r', '\n', 'x'};
    String etag = http.send("PUT", T + "bin-value", value).headers().firstValue("ETag").orElseThrow();
    HttpResponse<byte[]> r = http.get(T + "bin-value");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(value);
    assertThat(r.headers().firstValue("ETag")).hasValue(etag);
    assertThat(r.headers().firstValue("Content-Length")).hasValue("6");
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
    assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
  }

  @Test
  void head_existingKey_headersWithoutBody() {
    http.put(T + "head", "12345");
    HttpResponse<byte[]> r = http.send("HEAD", T + "head", null);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEmpty();
    assertThat(r.headers().firstValue("Content-Length")).hasValue("5");
    assertThat(r.headers().firstValue("ETag")).isPresent();
  }

  @Test
  void get_ifNoneMatchCurrent_notModified() {
    String etag = http.put(T + "inm", "v").headers().firstValue("ETag").orElseThrow();
    assertThat(http.get(T + "inm", "If-None-Match", etag).statusCode()).isEqualTo(304);
    assertThat(http.get(T + "inm", "If-None-Match", "\"1\"").statusCode()).isEqualTo(200);
  }

  @Test
  void put_ifMatchOldVersion_preconditionFailedAndUnchanged() {
    String old = http.put(T + "cas", "v1").headers().firstValue("ETag").orElseThrow();
    String current = http.put(T + "cas", "v2").headers().firstValue("ETag").orElseThrow();
    HttpResponse<byte[]> r = http.put(T + "cas", "v3", "If-Match", old);
    assertThat(r.statusCode()).isEqualTo(412);
    assertThat(HttpTestClient.json(r).get("code").asText()).isEqualTo("precondition_failed");
    assertThat(stored("cas")).isEqualTo("v2".getBytes(StandardCharsets.UTF_8));
    assertThat(http.put(T + "cas", "v3", "If-Match", current).statusCode()).isEqualTo(204);
    assertThat(stored("cas")).isEqualTo("v3".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void put_ifNoneMatchStar_onlyCreates() {
    assertThat(http.put(T + "once", "a", "If-None-Match", "*").statusCode()).isEqualTo(201);
    assertThat(http.put(T + "once", "b", "If-None-Match", "*").statusCode()).isEqualTo(412);
    assertThat(stored("once")).isEqualTo("a".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void put_ifMatchOnMissingKey_preconditionFailed() {
    assertThat(http.put(T + "missing-cas", "a", "If-Match", "*").statusCode()).isEqualTo(412);
    assertThat(http.put(T + "missing-cas", "a", "If-Match", "\"5\"").statusCode()).isEqualTo(412);
    assertThat(stored("missing-cas")).isNull();
  }

  @Test
  void delete_existingKey_noContentThenNotFound() {
    http.put(T + "del", "v");
    assertThat(http.delete(T + "del").statusCode()).isEqualTo(204);
    HttpResponse<byte[]> r = http.get(T + "del");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonNode p = HttpTestClient.json(r);
    assertThat(p.get("code").asText()).isEqualTo("key_not_found");
    assertThat(p.get("status").asInt()).isEqualTo(404);
    assertThat(p.get("detail").asText()).contains("del").contains("default/0");
    assertThat(http.delete(T + "del").statusCode()).isEqualTo(404);
  }

  @Test
  void delete_ifMatchMismatch_preconditionFailedAndKept() {
    http.put(T + "del-cas", "v");
    assertThat(http.delete(T + "del-cas", "If-Match", "\"1\"").statusCode()).isEqualTo(412);
    assertThat(stored("del-cas")).isNotNull();
  }

  @ParameterizedTest
  @CsvSource({
      "a%2Fb, 612f62", "%00k%FF, 006bff", "a+b, 612b62", "a%20b, 612062", "%2E%2E, 2e2e", "100%25, 31303025",
      "caf%C3%A9, 636166c3a9", "%0D%0A, 0d0a", "%2F, 2f", "a%2F..%2Fb, 612f2e2e2f62"})
  void put_percentEncodedKey_storedAsDecodedBytes(String encoded, String hexKey) {
    assertThat(http.put(T + encoded, "v-" + encoded).statusCode()).isIn(201, 204);
    assertThat(server.store().get("default", "0", java.util.HexFormat.of().parseHex(hexKey)))
        .isEqualTo(("v-" + encoded).getBytes(StandardCharsets.UTF_8));
    assertThat(http.get(T + encoded).body()).isEqualTo(("v-" + encoded).getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void put_dotDotSegment_isAKey() {
    // an unencoded ".." is a key too: the server does not normalise paths
    assertThat(http.put(T + "..", "dots").statusCode()).isIn(201, 204);
    assertThat(stored("..")).isEqualTo("dots".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void put_withTtl_getShowsRemainingTime() {
    assertThat(http.put(T + "ttl?ttl=100", "v").statusCode()).isEqualTo(201);
    HttpResponse<byte[]> r = http.get(T + "ttl");
    long left = Long.parseLong(r.headers().firstValue("X-TTL-Ms").orElseThrow());
    assertThat(left).isBetween(90_000L, 100_000L);
    assertThat(r.headers().firstValue("Expires")).isPresent();
    assertThat(http.put(T + "ttl", "v").statusCode()).isEqualTo(204);
    assertThat(http.get(T + "ttl").headers().firstValue("X-TTL-Ms")).isEmpty();
  }

  @Test
  void put_badTtl_invalidArgument() {
    assertThat(http.put(T + "ttl-bad?ttl=0", "v").statusCode()).isEqualTo(400);
    assertThat(http.put(T + "ttl-bad?ttl=x", "v").statusCode()).isEqualTo(400);
    assertThat(stored("ttl-bad")).isNull();
  }

  @Test
  void put_bodyOverLimit_valueTooLarge() {
    HttpResponse<byte[]> r = http.send("PUT", T + "big", new byte[64 * 1024 + 1]);
    assertThat(r.statusCode()).isEqualTo(413);
    assertThat(HttpTestClient.json(r).get("code").asText()).isEqualTo("value_too_large");
    assertThat(stored("big")).isNull();
    assertThat(http.send("PUT", T + "big", new byte[64 * 1024]).statusCode()).isEqualTo(201);
  }

  @Test
  void get_missingTable_tableNotFound() {
    HttpResponse<byte[]> r = http.get("/v1/dbs/default/tables/nope/keys/a");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(HttpTestClient.json(r).get("code").asText()).isEqualTo("table_not_found");
    assertThat(HttpTestClient.json(http.get("/v1/dbs/nodb/tables/t/keys/a")).get("code").asText())
        .isEqualTo("db_not_found");
  }

  @Test
  void post_onKey_methodNotAllowedWithAllow() {
    HttpResponse<byte[]> r = http.send("POST", T + "x", new byte[0]);
    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("Allow")).hasValue("DELETE, GET, HEAD, OPTIONS, PUT");
  }

  @Test
  void get_unknownPath_notFound() {
    HttpResponse<byte[]> r = http.get("/v2/nothing");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(HttpTestClient.json(r).get("code").asText()).isEqualTo("not_found");
  }

  @Test
  void get_keyOverLimit_keyTooLarge() {
    int max = server.store().options().maxKeyBytes();
    HttpResponse<byte[]> r = http.get(T + "k".repeat(max + 1));
    assertThat(r.statusCode()).isEqualTo(414);
    assertThat(HttpTestClient.json(r).get("code").asText()).isEqualTo("key_too_large");
  }
}
