package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;

/** Range listings with cursors, multi-get and batches (CLIENTS.md §10 items 18 and 19). */
class RangeAndBatchRoutesTest {
  static final String T = "/v1/dbs/r/tables/t";
  /** Keys with '/', '%', spaces and non-UTF-8 bytes, listed out of order. */
  static final byte[][] KEYS = {
      "p/b".getBytes(StandardCharsets.UTF_8), "p%a".getBytes(StandardCharsets.UTF_8),
      "p c".getBytes(StandardCharsets.UTF_8), {'p', (byte) 0xFF, 0}, {'p', (byte) 0x80},
      "p".getBytes(StandardCharsets.UTF_8), "q".getBytes(StandardCharsets.UTF_8),
      "o".getBytes(StandardCharsets.UTF_8)};

  @TempDir static Path dir;
  static KVStoreServer server;
  static HttpTestClient http;

  @BeforeAll
  static void start() {
    server = HttpServers.start(dir);
    http = new HttpTestClient(server.httpPort());
    http.put("/v1/dbs/r", null);
    http.put(T, null);
    for (byte[] k : KEYS) {
      assertThat(http.send("PUT", T + "/keys/" + PercentCoding.encode(k), k).statusCode()).isEqualTo(201);
    }
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static List<byte[]> sortedPrefixP(boolean reverse) {
    List<byte[]> out = new ArrayList<>();
    for (byte[] k : KEYS) {
      if (k[0] == 'p') {
        out.add(k);
      }
    }
    out.sort((a, b) -> reverse ? Arrays.compareUnsigned(b, a) : Arrays.compareUnsigned(a, b));
    return out;
  }

  /** Every key of a paged listing, following next_cursor and checking the Link header. */
  static List<byte[]> pages(String query) {
    List<byte[]> keys = new ArrayList<>();
    String url = T + "/keys?" + query;
    for (int i = 0; i < 20; i++) {
      HttpResponse<byte[]> r = http.get(url);
      assertThat(r.statusCode()).as(HttpTestClient.text(r)).isEqualTo(200);
      JsonNode doc = HttpTestClient.json(r);
      for (JsonNode item : doc.get("items")) {
        keys.add(Base64.getDecoder().decode(item.get("key_b64").asText()));
      }
      if (doc.get("next_cursor").isNull()) {
        assertThat(r.headers().firstValue("Link")).isEmpty();
        return keys;
      }
      String link = r.headers().firstValue("Link").orElseThrow();
      assertThat(link).endsWith("; rel=\"next\"").contains("cursor=" + doc.get("next_cursor").asText());
      url = link.substring(1, link.indexOf('>'));
    }
    throw new AssertionError("more than 20 pages");
  }

  @Test
  void list_prefixPaged_unsignedByteOrderEachKeyOnce() {
    assertThat(pages("prefix=p&limit=2")).containsExactlyElementsOf(sortedPrefixP(false));
  }

  @Test
  void list_reversePaged_descendingOrder() {
    assertThat(pages("prefix=p&limit=2&reverse=true")).containsExactlyElementsOf(sortedPrefixP(true));
  }

  @Test
  void list_startEnd_startInclusiveEndExclusive() {
    List<byte[]> keys = pages("start=o&end=p%20c");
    assertThat(keys).extracting(k -> new String(k, StandardCharsets.ISO_8859_1)).containsExactly("o", "p");
  }

  @Test
  void list_values_textAndBase64() {
    JsonNode doc = HttpTestClient.json(http.get(T + "/keys?prefix=p%2F&values=true"));
    JsonNode item = doc.get("items").get(0);
    assertThat(item.get("key").asText()).isEqualTo("p/b");
    assertThat(Base64.getDecoder().decode(item.get("value_b64").asText())).isEqualTo("p/b".getBytes());
    JsonNode binary = HttpTestClient.json(http.get(T + "/keys?start=p%80&end=p%81")).get("items").get(0);
    assertThat(binary.has("key")).isFalse();
    assertThat(binary.has("value_b64")).isFalse();
  }

  @Test
  void list_badArguments_invalidArgument() {
    for (String q : List.of("limit=0", "limit=1001", "start=b&end=a", "cursor=!!!", "cursor=AAAA", "reverse=maybe")) {
      HttpResponse<byte[]> r = http.get(T + "/keys?" + q);
      assertThat(r.statusCode()).as(q).isEqualTo(400);
      assertThat(HttpTestClient.json(r).get("code").asText()).isEqualTo("invalid_argument");
    }
  }

  @Test
  void multiGet_positional() {
    String b64 = Base64.getEncoder().encodeToString(new byte[] {'p', (byte) 0xFF, 0});
    JsonNode items = HttpTestClient.json(http.postJson(T + "/keys:get",
        "{\"keys\":[\"q\",\"missing\"],\"keys_b64\":[\"" + b64 + "\"]}")).get("items");
    assertThat(items).hasSize(3);
    assertThat(items.get(0).get("found").asBoolean()).isTrue();
    assertThat(items.get(1).get("found").asBoolean()).isFalse();
    assertThat(items.get(2).get("value_b64").asText()).isEqualTo(b64);
    assertThat(items.get(0).get("version").asLong()).isPositive();
  }

  @Test
  void multiGet_smallResponse_hasContentLength() {
    HttpResponse<byte[]> r = http.postJson(T + "/keys:get", "{\"keys\":[\"q\",\"missing\"]}");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-length")).hasValue(Integer.toString(r.body().length));
    assertThat(r.headers().firstValue("transfer-encoding")).isEmpty();
  }

  @Test
  void multiGet_largeResponse_isChunkedAndTheSameDocument() throws Exception {
    // 20 values of 40 KiB, each asked for 5 times, and a missing key: a 5.5 MB document.
    String body = bigMultiGet();
    byte[] expected = expectedMultiGet(body);
    HttpResponse<byte[]> r = http.postJson(T + "/keys:get", body);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-length")).isEmpty();
    assertThat(r.headers().firstValue("transfer-encoding")).hasValue("chunked");
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json; charset=utf-8");
    assertThat(r.body()).isEqualTo(expected);
    // the connection stays usable
    assertThat(http.postJson(T + "/keys:get", "{\"keys\":[\"q\"]}").statusCode()).isEqualTo(200);
  }

  @Test
  void multiGet_largeResponseToHttp10_endsWithTheConnection() throws Exception {
    String body = bigMultiGet();
    byte[] expected = expectedMultiGet(body);
    byte[] json = body.getBytes(StandardCharsets.UTF_8);
    try (Socket s = new Socket("127.0.0.1", server.httpPort())) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write(("POST " + T + "/keys:get HTTP/1.0\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + json.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().write(json);
      s.getOutputStream().flush();
      byte[] all = s.getInputStream().readAllBytes();
      int end = indexOf(all, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String head = new String(all, 0, end, StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT);
      assertThat(head).startsWith("http/1.1 200 ").contains("connection: close")
          .doesNotContain("chunked").doesNotContain("content-length");
      assertThat(Arrays.copyOfRange(all, end + 4, all.length)).isEqualTo(expected);
    }
  }

  /** A multi-get of 20 values of 40 KiB (written here), each asked for 5 times, and a missing key. */
  private static String bigMultiGet() {
    StringBuilder keys = new StringBuilder("{\"keys\":[");
    for (int i = 0; i < 20; i++) {
      byte[] v = new byte[40 * 1024];
      new Random(i).nextBytes(v);
      assertThat(http.send("PUT", T + "/keys/big" + i, v).statusCode()).isIn(201, 204);
    }
    for (int n = 0; n < 5; n++) {
      for (int i = 0; i < 20; i++) {
        keys.append("\"big").append(i).append("\",");
      }
    }
    return keys.append("\"missing\"]}").toString();
  }

  /** The document of a multi-get, made of the items of one small multi-get per key. */
  private static byte[] expectedMultiGet(String body) throws Exception {
    ObjectNode doc = HttpTestClient.JSON.createObjectNode();
    ArrayNode items = doc.putArray("items");
    for (JsonNode key : HttpTestClient.JSON.readTree(body).get("keys")) {
      HttpResponse<byte[]> one = http.postJson(T + "/keys:get", "{\"keys\":[\"" + key.asText() + "\"]}");
      assertThat(one.headers().firstValue("content-length")).isPresent();
      items.add(HttpTestClient.json(one).get("items").get(0));
    }
    return (HttpTestClient.JSON.writeValueAsString(doc) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private static int indexOf(byte[] b, byte[] what) {
    for (int i = 0; i + what.length <= b.length; i++) {
      if (Arrays.equals(b, i, i + what.length, what, 0, what.length)) {
        return i;
      }
    }
    throw new AssertionError("no " + new String(what, StandardCharsets.US_ASCII) + " in the response");
  }

  @Test
  void batch_mixedPutDelete_results() {
    JsonNode r = HttpTestClient.json(http.postJson(T + "/batch",
        "{\"ops\":[{\"op\":\"put\",\"key\":\"b1\",\"value\":\"x\"},{\"op\":\"put\",\"key\":\"b1\",\"value\":\"y\"},"
            + "{\"op\":\"delete\",\"key\":\"nokey\"},{\"op\":\"put\",\"key\":\"b2\",\"value\":\"z\",\"if_absent\":true},"
            + "{\"op\":\"put\",\"key\":\"b2\",\"value\":\"w\",\"if_absent\":true}]}"));
    assertThat(r.get("results").findValuesAsText("status")).containsExactly("201", "204", "404", "201", "412");
    assertThat(server.store().get("r", "t", "b2")).isEqualTo("z".getBytes());
  }

  @Test
  void batch_atomicWithFailingPrecondition_nothingWrittenIndexReported() {
    long v = HttpTestClient.json(http.postJson(T + "/keys:get", "{\"keys\":[\"q\"]}")).get("items").get(0)
        .get("version").asLong();
    HttpResponse<byte[]> r = http.postJson(T + "/batch",
        "{\"atomic\":true,\"ops\":[{\"op\":\"put\",\"key\":\"a1\",\"value\":\"x\"},"
            + "{\"op\":\"delete\",\"key\":\"q\",\"if_version\":" + v + "},"
            + "{\"op\":\"put\",\"key_b64\":\"YTI=\",\"value_b64\":\"eQ==\",\"if_version\":" + (v + 1000) + "}]}");
    assertThat(r.statusCode()).isEqualTo(412);
    JsonNode p = HttpTestClient.json(r);
    assertThat(p.get("code").asText()).isEqualTo("precondition_failed");
    assertThat(p.get("index").asInt()).isEqualTo(2);
    assertThat(server.store().get("r", "t", "a1")).isNull();
    assertThat(server.store().get("r", "t", "q")).isNotNull();

    HttpResponse<byte[]> ok = http.postJson(T + "/batch",
        "{\"atomic\":true,\"ops\":[{\"op\":\"put\",\"key\":\"a1\",\"value\":\"x\",\"ttl\":60},"
            + "{\"op\":\"delete\",\"key\":\"q\",\"if_version\":" + v + "}]}");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(HttpTestClient.json(ok).get("results").findValuesAsText("status")).containsExactly("201", "204");
    assertThat(server.store().get("r", "t", "a1")).isEqualTo("x".getBytes());
    assertThat(server.store().get("r", "t", "q")).isNull();
    http.put(T + "/keys/q", "q");
  }

  @Test
  void batch_overOpLimit_batchTooLarge() {
    StringBuilder sb = new StringBuilder("{\"ops\":[");
    for (int i = 0; i <= BatchRoutes.MAX_OPS; i++) {
      sb.append(i == 0 ? "" : ",").append("{\"op\":\"delete\",\"key\":\"k").append(i).append("\"}");
    }
    HttpResponse<byte[]> r = http.postJson(T + "/batch", sb.append("]}").toString());
    assertThat(r.statusCode()).isEqualTo(413);
    assertThat(HttpTestClient.json(r).get("code").asText()).isEqualTo("batch_too_large");
  }

  @Test
  void batch_malformed_invalidArgument() {
    for (String body : List.of("[]", "{\"ops\":5}", "{\"ops\":[{\"op\":\"upsert\",\"key\":\"a\"}]}",
        "{\"ops\":[{\"op\":\"put\",\"key\":\"a\"}]}", "{\"ops\":[{\"op\":\"put\",\"key\":\"a\",\"value\":1}]}",
        "{\"ops\":[{\"op\":\"put\",\"key_b64\":\"!!\",\"value\":\"v\"}]}", "{\"ops\":[],\"extra\":1}", "{not json")) {
      HttpResponse<byte[]> r = http.postJson(T + "/batch", body);
      assertThat(r.statusCode()).as(body).isEqualTo(400);
      assertThat(HttpTestClient.json(r).get("code").asText()).as(body).isEqualTo("invalid_argument");
    }
  }
}
