package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.util.SafeEncoder;

/** The real Jedis 5 client against the server, in each way CLIENTS.md §1 lists. */
class JedisCompatibilityTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static int port;

  @BeforeAll
  static void start() {
    server = TestServers.start(dir);
    port = server.respPort();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void plainJedis_setGetDel_roundTrips() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      assertThat(j.set("user", "Krishna")).isEqualTo("OK");
      assertThat(j.get("user")).isEqualTo("Krishna");
      assertThat(j.del("user")).isEqualTo(1);
      assertThat(j.get("user")).isNull();
      assertThat(j.ping()).isEqualTo("PONG");
    }
  }

  @Test
  void jedisPooled_withSetInfoHandshake_works() {
    try (JedisPooled j = new JedisPooled("127.0.0.1", port)) {
      j.set("pooled", "v");
      assertThat(j.get("pooled")).isEqualTo("v");
      assertThat(j.incr("pooled-counter")).isEqualTo(1);
      assertThat(j.incrBy("pooled-counter", 41)).isEqualTo(42);
    }
  }

  @Test
  void databaseAndClientName_selectTableAndName() {
    DefaultJedisClientConfig cfg = DefaultJedisClientConfig.builder().database(2).clientName("app1").build();
    try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", port), cfg)) {
      j.set("in-db2", "x");
      assertThat(j.clientGetname()).isEqualTo("app1");
      assertThat(j.get("in-db2")).isEqualTo("x");
    }
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      assertThat(j.get("in-db2")).as("index 0 is another table").isNull();
      j.select(2);
      assertThat(j.get("in-db2")).isEqualTo("x");
    }
  }

  @Test
  void resp3Protocol_nullsAndValues() {
    DefaultJedisClientConfig cfg = DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build();
    try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", port), cfg)) {
      assertThat(j.get("resp3-missing")).isNull();
      j.set("resp3", "v");
      assertThat(j.mget("resp3", "resp3-missing")).containsExactly("v", null);
      assertThat(j.configGet("appendfsync")).containsEntry("appendfsync", "always");
    }
  }

  @Test
  void poolWithTestOnBorrow_validatesWithPing() {
    JedisPoolConfig pc = new JedisPoolConfig();
    pc.setTestOnBorrow(true);
    pc.setMaxTotal(4);
    try (JedisPool pool = new JedisPool(pc, "127.0.0.1", port)) {
      for (int i = 0; i < 10; i++) {
        try (Jedis j = pool.getResource()) {
          j.set("borrow" + i, "v" + i);
        }
      }
      try (Jedis j = pool.getResource()) {
        assertThat(j.get("borrow9")).isEqualTo("v9");
      }
    }
  }

  @Test
  void pipeline_thousandCommands_repliesInOrder() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      Pipeline p = j.pipelined();
      for (int i = 0; i < 1000; i++) {
        p.set("pipe" + i, Integer.toString(i));
        p.get("pipe" + i);
        p.incr("pipe-counter");
      }
      List<Object> replies = p.syncAndReturnAll();
      assertThat(replies).hasSize(3000);
      for (int i = 0; i < 1000; i++) {
        assertThat(replies.get(3 * i)).isEqualTo("OK");
        assertThat(replies.get(3 * i + 1)).isEqualTo(Integer.toString(i));
        assertThat(replies.get(3 * i + 2)).isEqualTo((long) i + 1);
      }
    }
  }

  @Test
  void binaryKeysAndValues_areKeptExactly() {
    byte[] key = {'b', 'i', 'n', '\r', '\n', 0, (byte) 0xff};
    byte[] value = {'a', '\r', '\n', 'b', 0, 'c', (byte) 0xff};
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.set(key, value);
      assertThat(j.get(key)).isEqualTo(value);
      assertThat(j.set(key, new byte[0])).isEqualTo("OK");
      assertThat(j.get(key)).isEmpty();
    }
  }

  @Test
  void errors_useRedisTexts_andConnectionStaysUsable() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.set("text", "abc");
      assertThatThrownBy(() -> j.incr("text"))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("ERR value is not an integer or out of range");
      assertThatThrownBy(() -> j.sendCommand(() -> "NOSUCH".getBytes(StandardCharsets.UTF_8), "a", "b"))
          .hasMessage("ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' ");
      assertThatThrownBy(() -> j.sendCommand(() -> "GET".getBytes(StandardCharsets.UTF_8)))
          .hasMessage("ERR wrong number of arguments for 'get' command");
      assertThat(j.get("text")).isEqualTo("abc");
    }
  }

  @Test
  void setOptions_nxXxGet() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.del("opt");
      assertThat(j.set("opt", "1", SetParams.setParams().xx())).isNull();
      assertThat(j.set("opt", "1", SetParams.setParams().nx())).isEqualTo("OK");
      assertThat(j.set("opt", "2", SetParams.setParams().nx())).isNull();
      assertThat(j.setGet("opt", "3")).isEqualTo("1");
      assertThat(j.get("opt")).isEqualTo("3");
      assertThat(j.setnx("opt", "4")).isZero();
      assertThat(j.getSet("opt", "5")).isEqualTo("3");
      assertThat(j.getDel("opt")).isEqualTo("5");
      assertThat(j.exists("opt")).isFalse();
    }
  }

  @Test
  void scan_visitsEveryKeyOnce() {
    try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", port),
        DefaultJedisClientConfig.builder().database(5).build())) {
      for (int i = 0; i < 250; i++) {
        j.set("scan:" + i, "v");
      }
      j.set("other", "v");
      Set<String> seen = new HashSet<>();
      String cursor = ScanParams.SCAN_POINTER_START;
      int rounds = 0;
      do {
        ScanResult<String> page = j.scan(cursor, new ScanParams().match("scan:*").count(20));
        for (String k : page.getResult()) {
          assertThat(seen.add(k)).as("duplicate " + k).isTrue();
        }
        cursor = page.getCursor();
        rounds++;
      } while (!cursor.equals("0") && rounds < 1000);
      assertThat(seen).hasSize(250);
      assertThat(j.keys("scan:1?")).hasSize(10);
      assertThat(j.dbSize()).isEqualTo(251);
    }
  }

  @Test
  void kvInfo_describesTheTable() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.set("info:key", "v");
      String info = SafeEncoder.encode((byte[]) j.sendCommand(() -> SafeEncoder.encode("KV.INFO"), "default", "0"));
      Map<String, String> fields = new HashMap<>();
      for (String line : info.split("\r\n")) {
        int colon = line.indexOf(':');
        fields.put(line.substring(0, colon), line.substring(colon + 1));
      }
      assertThat(fields).containsKeys("engine", "durability", "entries_estimate", "bytes_on_disk");
      assertThat(Long.parseLong(fields.get("entries_estimate"))).isPositive();
      if (fields.get("engine").equals("lsm")) {
        assertThat(Long.parseLong(fields.get("memtable.bytes"))).isPositive();
      }
      assertThatThrownBy(() -> j.sendCommand(() -> SafeEncoder.encode("KV.INFO"), "default", "nosuch"))
          .hasMessageStartingWith("ERR no such table: ");
    }
  }

  @Test
  void info_hasRedisSectionsWithLiveFigures() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.set("info:counted", "v");
      Map<String, String> fields = new HashMap<>();
      for (String line : j.info().split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && !line.startsWith("#")) {
          fields.put(line.substring(0, colon), line.substring(colon + 1));
        }
      }
      assertThat(fields).containsEntry("redis_mode", "standalone").containsEntry("role", "master")
          .containsKeys("redis_version", "connected_clients", "used_memory", "total_commands_processed");
      assertThat(fields.get("db0")).startsWith("keys=");
      assertThat(Double.parseDouble(fields.get("kvstore_used_cpu_total"))).isPositive();
      if (System.getProperty("os.name").startsWith("Linux")) {
        double user = Double.parseDouble(fields.get("used_cpu_user"));
        double sys = Double.parseDouble(fields.get("used_cpu_sys"));
        assertThat(user).as("a server that has run commands has used user CPU").isPositive();
        assertThat(user + sys).isLessThanOrEqualTo(Double.parseDouble(fields.get("kvstore_used_cpu_total")) + 0.05);
      }
      assertThat(j.info("cpu")).startsWith("# Cpu\r\n").doesNotContain("# Server");
      assertThat(j.info("nosuchsection")).isEmpty();
    }
  }

  /** INCRBYFLOAT with the examples of Redis' documentation, and its errors. */
  @Test
  void incrByFloat_formatsLikeRedis() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.set("f", "10.50");
      assertThat(floatReply(j, "f", "0.1")).isEqualTo("10.6");
      assertThat(floatReply(j, "f", "-5")).isEqualTo("5.6");
      j.set("f", "5.0e3");
      assertThat(floatReply(j, "f", "2.0e2")).isEqualTo("5200");
      j.del("g");
      assertThat(floatReply(j, "g", "0.1")).isEqualTo("0.1");
      assertThat(floatReply(j, "g", "0.2")).isEqualTo("0.3");
      assertThat(floatReply(j, "g", "-0.3")).isEqualTo("0");
      assertThat(j.incrByFloat("g", 1.5)).isEqualTo(1.5);
      j.set("text", "abc");
      assertThatThrownBy(() -> j.incrByFloat("text", 1)).hasMessage("ERR value is not a valid float");
      assertThatThrownBy(() -> floatReply(j, "g", " 1")).hasMessage("ERR value is not a valid float");
      assertThatThrownBy(() -> floatReply(j, "g", "inf")).hasMessage("ERR value is not a valid float");
      assertThatThrownBy(() -> floatReply(j, "g", "1e5000"))
          .hasMessage("ERR increment would produce NaN or Infinity");
      assertThat(j.get("g")).isEqualTo("1.5");
    }
  }

  private static String floatReply(Jedis j, String key, String by) {
    Object r = j.sendCommand(() -> SafeEncoder.encode("INCRBYFLOAT"), key, by);
    return SafeEncoder.encode((byte[]) r);
  }
}
