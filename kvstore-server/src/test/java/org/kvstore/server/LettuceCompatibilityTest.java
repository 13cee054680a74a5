package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The real Lettuce 6 client: default HELLO 3 handshake, forced RESP2/RESP3, database and name. */
class LettuceCompatibilityTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static RedisClient client;

  @BeforeAll
  static void start() {
    server = TestServers.start(dir);
    client = RedisClient.create();
    client.setDefaultTimeout(Duration.ofSeconds(10));
  }

  @AfterAll
  static void stop() {
    client.shutdown(0, 2, TimeUnit.SECONDS);
    server.close();
  }

  private static RedisURI uri() {
    return RedisURI.builder().withHost("127.0.0.1").withPort(server.respPort()).build();
  }

  @Test
  void defaultHandshake_hello3_roundTrips() {
    try (StatefulRedisConnection<String, String> c = client.connect(uri())) {
      RedisCommands<String, String> r = c.sync();
      assertThat(r.set("lettuce", "v")).isEqualTo("OK");
      assertThat(r.get("lettuce")).isEqualTo("v");
      assertThat(r.get("lettuce-missing")).isNull();
      assertThat(r.clientInfo()).contains("resp=3").contains("lib-name=Lettuce");
    }
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void forcedProtocol_roundTrips(ProtocolVersion version) {
    client.setOptions(ClientOptions.builder().protocolVersion(version).build());
    try (StatefulRedisConnection<String, String> c = client.connect(uri())) {
      RedisCommands<String, String> r = c.sync();
      r.set("p-" + version, "v");
      assertThat(r.get("p-" + version)).isEqualTo("v");
      assertThat(r.mget("p-" + version, "nothing")).containsExactly(
          KeyValue.just("p-" + version, "v"), KeyValue.empty("nothing"));
      assertThat(r.ping()).isEqualTo("PONG");
    } finally {
      client.setOptions(ClientOptions.create());
    }
  }

  @Test
  void databaseAndClientName_areApplied() {
    RedisURI u = RedisURI.builder().withHost("127.0.0.1").withPort(server.respPort())
        .withDatabase(2).withClientName("app1").build();
    try (StatefulRedisConnection<String, String> c = client.connect(u)) {
      RedisCommands<String, String> r = c.sync();
      r.set("lettuce-db2", "x");
      assertThat(r.clientGetname()).isEqualTo("app1");
      assertThat(r.clientList()).contains("name=app1").contains("lib-name=Lettuce");
    }
    try (StatefulRedisConnection<String, String> c = client.connect(uri())) {
      assertThat(c.sync().get("lettuce-db2")).isNull();
    }
  }

  @Test
  void asyncPipeline_manyCommandsOnOneConnection_inOrder() throws Exception {
    try (StatefulRedisConnection<String, String> c = client.connect(uri())) {
      RedisAsyncCommands<String, String> a = c.async();
      c.setAutoFlushCommands(false);
      List<RedisFuture<Long>> incrs = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        incrs.add(a.incr("lettuce-counter"));
      }
      c.flushCommands();
      for (int i = 0; i < incrs.size(); i++) {
        assertThat(incrs.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i + 1L);
      }
      c.setAutoFlushCommands(true);
    }
  }

  @Test
  void transactionsFree_rmwCommands() {
    try (StatefulRedisConnection<String, String> c = client.connect(uri())) {
      RedisCommands<String, String> r = c.sync();
      r.del("s");
      assertThat(r.append("s", "Hello")).isEqualTo(5);
      assertThat(r.append("s", " World")).isEqualTo(11);
      assertThat(r.getrange("s", 0, 4)).isEqualTo("Hello");
      assertThat(r.getrange("s", -5, -1)).isEqualTo("World");
      assertThat(r.setrange("s", 6, "Redis")).isEqualTo(11);
      assertThat(r.get("s")).isEqualTo("Hello Redis");
      assertThat(r.strlen("s")).isEqualTo(11);
      assertThat(r.msetnx(java.util.Map.of("s", "x", "t", "y"))).isFalse();
      assertThat(r.get("t")).isNull();
      r.rename("s", "t");
      assertThat(r.get("t")).isEqualTo("Hello Redis");
      assertThat(r.type("s")).isEqualTo("none");
      assertThat(r.type("t")).isEqualTo("string");
      r.set("u", "taken");
      assertThat(r.renamenx("t", "u")).isFalse();
      assertThat(r.get("u")).isEqualTo("taken");
      assertThat(r.renamenx("t", "v")).isTrue();
      assertThat(r.get("v")).isEqualTo("Hello Redis");
      assertThat(r.exists("t")).isZero();
      assertThat(r.renamenx("v", "v")).isFalse();
      assertThatThrownBy(() -> r.renamenx("t", "w")).hasMessage("ERR no such key");
      assertThat(r.decrby("n", 5)).isEqualTo(-5);
    }
  }
}
