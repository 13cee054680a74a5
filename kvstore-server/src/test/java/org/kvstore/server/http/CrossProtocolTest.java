package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvstore.server.KVStoreServer;
import org.kvstore.server.TestServers;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A key written by RESP is the same bytes over HTTP and back (CLIENTS.md §9 and §10), binary keys
 * included, on the default engine (lsm) and on memory tables, and SELECT n is table n of database
 * default.
 */
class CrossProtocolTest {
  static final byte[] KEY = {'b', 'i', 'n', '\r', '\n', 'k', 'e', 'y', 0, (byte) 0xFF, '/', ' ', '%', '+'};
  static final byte[] VALUE = {'a', '\r', '\n', 'b', 0, 'c', (byte) 0xFF};

  @TempDir static Path dir;
  static KVStoreServer server;
  static HttpTestClient http;

  @BeforeAll
  static void start() {
    server = KVStoreServer.start(TestServers.config(dir).set("http-port", "0").build());
    http = new HttpTestClient(server.httpPort());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 3})
  void respWrite_httpRead_sameBytesAndVersion(int db) {
    try (Jedis j = new Jedis("127.0.0.1", server.respPort())) {
      j.select(db);
      j.set(KEY, VALUE);
    }
    String path = "/v1/dbs/default/tables/" + db + "/keys/" + PercentCoding.encode(KEY);
    HttpResponse<byte[]> r = http.get(path);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(VALUE);
    assertThat(http.get("/v1/dbs/default/tables/" + db + "/keys/bin%0D%0Akey%00%FF%2F%20%25%2B").body())
        .isEqualTo(VALUE);
    assertThat(http.get("/v1/dbs/default/tables/1/keys/bin%0D%0Akey%00%FF%2F%20%25%2B").statusCode()).isEqualTo(404);
  }

  @org.junit.jupiter.api.Test
  void httpDropOfIndexTable_respSelectSeesTheNewTable() {
    try (Jedis j = new Jedis("127.0.0.1", server.respPort())) {
      j.select(9);
      j.set("before-drop", "v");
      assertThat(http.delete("/v1/dbs/default/tables/9").statusCode()).isEqualTo(204);
      // as after KV.DROP by another connection: one "no such table" reply, then the index table anew
      try {
        j.get("before-drop");
      } catch (redis.clients.jedis.exceptions.JedisDataException e) {
        assertThat(e.getMessage()).contains("no such table");
      }
      assertThat(j.get("before-drop")).isNull();
      assertThat(j.set("after-drop", "w")).isEqualTo("OK");
    }
    assertThat(http.get("/v1/dbs/default/tables/9/keys/after-drop").body()).isEqualTo("w".getBytes());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 7})
  void httpWrite_respRead_sameBytes(int db) {
    byte[] key = {0, 'h', (byte) 0x80, '\n'};
    byte[] value = {(byte) 0xFE, 0, '\r'};
    assertThat(http.send("PUT", "/v1/dbs/default/tables/" + db + "/keys/" + PercentCoding.encode(key), value)
        .statusCode()).isIn(201, 204);
    try (Jedis j = new Jedis("127.0.0.1", server.respPort())) {
      j.select(db);
      assertThat(j.get(key)).isEqualTo(value);
      j.del(key);
    }
    assertThat(http.get("/v1/dbs/default/tables/" + db + "/keys/" + PercentCoding.encode(key)).statusCode())
        .isEqualTo(404);
  }
}
