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
import redis.clients.jedis.args.BitCountOption;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.BitPosParams;
import redis.clients.jedis.params.LCSParams;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.LCSMatchResult;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.util.SafeEncoder;

/** The real Jedis 5 client against the server, in each way its users call it. */
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
          .containsKeys("redis_version", "connected_clients", "used_memory", "used_memory_direct",
              "total_commands_processed");
      assertThat(fields.get("db0")).startsWith("keys=");
      assertThat(Double.parseDouble(fields.get("kvstore_used_cpu_total"))).isPositive();
      if (System.getProperty("os.name").startsWith("Linux")) {
        double user = Double.parseDouble(fields.get("used_cpu_user"));
        double sys = Double.parseDouble(fields.get("used_cpu_sys"));
        assertThat(user).as("a server that has run commands has used user CPU").isPositive();
        assertThat(user + sys).isLessThanOrEqualTo(Double.parseDouble(fields.get("kvstore_used_cpu_total")) + 0.05);
      }
      assertThat(j.info("cpu")).startsWith("# CPU\r\n").doesNotContain("# Server");
      assertThat(j.info()).contains("# Errorstats").doesNotContain("# Commandstats");
      assertThat(j.info("nosuchsection")).isEmpty();
    }
  }

  /** COPY, OBJECT, TOUCH and INFO keyspace through Jedis' own methods, in databases 11 and 12. */
  @Test
  void copyObjectTouchInfoKeyspace_jedisMethods() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.select(11);
      j.set("cp:src", "sheep");
      assertThat(j.copy("cp:src", "cp:dst", false)).isTrue();
      assertThat(j.copy("cp:src", "cp:dst", false)).isFalse();
      assertThat(j.copy("cp:missing", "cp:new", true)).isFalse();
      j.set("cp:src", "dolly");
      assertThat(j.copy("cp:src", "cp:dst", true)).isTrue();
      assertThat(j.get("cp:dst")).isEqualTo("dolly");
      assertThat(j.copy("cp:src", "cp:elsewhere", 12, false)).isTrue();
      assertThatThrownBy(() -> j.copy("cp:src", "cp:src", false))
          .isInstanceOf(JedisDataException.class).hasMessage("ERR source and destination objects are the same");
      assertThatThrownBy(() -> j.copy("cp:src", "cp:x", 16, false))
          .isInstanceOf(JedisDataException.class).hasMessage("ERR DB index is out of range");

      j.set("enc:int", "12345");
      j.set("enc:raw", "x".repeat(45));
      assertThat(j.objectEncoding("cp:src")).isEqualTo("embstr");
      assertThat(j.objectEncoding("enc:int")).isEqualTo("int");
      assertThat(j.objectEncoding("enc:raw")).isEqualTo("raw");
      assertThat(j.objectEncoding("enc:missing")).isNull();
      assertThat(j.objectRefcount("enc:int")).isEqualTo(1L);
      assertThat(j.objectIdletime("enc:int")).isZero();
      assertThatThrownBy(() -> j.objectFreq("enc:int"))
          .isInstanceOf(JedisDataException.class).hasMessageStartingWith("ERR An LFU maxmemory policy is not selected");
      assertThat(j.objectHelp()).hasSize(15).startsWith("OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");

      assertThat(j.touch("cp:src", "cp:dst", "cp:missing", "cp:src")).isEqualTo(3);
      assertThat(j.info("keyspace"))
          .contains("db11:keys=4,expires=0,avg_ttl=0\r\n")
          .contains("db12:keys=1,expires=0,avg_ttl=0\r\n");
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
      // As Redis' strtold: infinity is a float (then refused as a result), 1e5000 overflows parsing.
      assertThatThrownBy(() -> floatReply(j, "g", "inf"))
          .hasMessage("ERR increment would produce NaN or Infinity");
      assertThatThrownBy(() -> floatReply(j, "g", "-Infinity"))
          .hasMessage("ERR increment would produce NaN or Infinity");
      assertThatThrownBy(() -> floatReply(j, "g", "nan")).hasMessage("ERR value is not a valid float");
      assertThatThrownBy(() -> floatReply(j, "g", "1e5000")).hasMessage("ERR value is not a valid float");
      assertThat(j.get("g")).isEqualTo("1.5");
      // Redis' long double, written with 17 decimals (answers of Redis 7.0.15 on x86-64).
      j.set("h", "1");
      assertThat(floatReply(j, "h", "1e-17")).isEqualTo("1.00000000000000001");
      j.del("h");
      assertThat(floatReply(j, "h", "1e30")).isEqualTo("1000000000000000000024696061952");
      j.set("h", "10.6");
      assertThat(floatReply(j, "h", "3.0e3")).isEqualTo("3010.60000000000000009");
      j.set("h", "17179869184");
      assertThat(j.incrByFloat("h", 1.5)).isEqualTo(17179869185.5);
    }
  }

  /** SETBIT, GETBIT, BITCOUNT and BITPOS with Redis' examples and errors. */
  @Test
  void bitmaps_setGetCountAndFind() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.del("bits");
      assertThat(j.setbit("bits", 7, true)).isFalse();
      assertThat(j.setbit("bits", 7, true)).isTrue();
      assertThat(j.getbit("bits", 7)).isTrue();
      assertThat(j.getbit("bits", 100)).isFalse();
      assertThat(j.get("bits")).isEqualTo("\u0001");
      j.set("mykey", "foobar");
      assertThat(j.bitcount("mykey")).isEqualTo(26);
      assertThat(j.bitcount("mykey", 0, 0)).isEqualTo(4);
      assertThat(j.bitcount("mykey", 1, 1)).isEqualTo(6);
      assertThat(j.bitcount("mykey", 1, 1, BitCountOption.BYTE)).isEqualTo(6);
      assertThat(j.bitcount("mykey", 5, 30, BitCountOption.BIT)).isEqualTo(17);
      j.set("pos".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xff, (byte) 0xf0, 0});
      assertThat(j.bitpos("pos", false)).isEqualTo(12);
      j.set("pos".getBytes(StandardCharsets.UTF_8), new byte[] {0, (byte) 0xff, (byte) 0xf0});
      assertThat(j.bitpos("pos", true, new BitPosParams(0))).isEqualTo(8);
      assertThat(j.bitpos("pos", true, new BitPosParams(2))).isEqualTo(16);
      assertThat(j.bitpos("pos", true, new BitPosParams(2, -1).modifier(BitCountOption.BYTE))).isEqualTo(16);
      assertThat(j.bitpos("pos", true, new BitPosParams(7, 15).modifier(BitCountOption.BIT))).isEqualTo(8);
      assertThat(j.bitpos("pos", true, new BitPosParams(7, -3).modifier(BitCountOption.BIT))).isEqualTo(8);
      assertThat(j.bitpos("nokey", true)).isEqualTo(-1);
      assertThat(j.bitpos("nokey", false)).isZero();
      assertThatThrownBy(() -> j.setbit("bits", -1, true))
          .hasMessage("ERR bit offset is not an integer or out of range");
      assertThatThrownBy(() -> j.setbit("bits", 4L * 1024 * 1024 * 1024, true))
          .hasMessage("ERR bit offset is not an integer or out of range");
      assertThatThrownBy(() -> j.sendCommand(() -> SafeEncoder.encode("SETBIT"), "bits", "1", "2"))
          .hasMessage("ERR bit is not an integer or out of range");
      assertThatThrownBy(() -> j.sendCommand(() -> SafeEncoder.encode("BITPOS"), "bits", "2"))
          .hasMessage("ERR The bit argument must be 1 or 0.");
      assertThatThrownBy(() -> j.sendCommand(() -> SafeEncoder.encode("BITCOUNT"), "bits", "0"))
          .hasMessage("ERR syntax error");
      // Redis 7.2 checks the arguments before it looks the key up (7.0 answered 0 for a missing key).
      assertThatThrownBy(() -> j.sendCommand(() -> SafeEncoder.encode("BITCOUNT"), "nokey", "0", "1", "foo"))
          .hasMessage("ERR syntax error");
      assertThatThrownBy(() -> j.sendCommand(() -> SafeEncoder.encode("BITPOS"), "nokey", "0", "a"))
          .hasMessage("ERR value is not an integer or out of range");
    }
  }

  /** LCS with Redis' documented example. */
  @Test
  void lcs_stringLenAndIdx() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.mset("key1", "ohmytext", "key2", "mynewtext");
      assertThat(j.lcs("key1", "key2", LCSParams.LCSParams()).getMatchString()).isEqualTo("mytext");
      assertThat(j.lcs("key1", "key2", LCSParams.LCSParams().len()).getLen()).isEqualTo(6);
      LCSMatchResult idx = j.lcs("key1", "key2", LCSParams.LCSParams().idx().minMatchLen(4).withMatchLen());
      assertThat(idx.getLen()).isEqualTo(6);
      assertThat(idx.getMatches()).hasSize(1);
      LCSMatchResult.MatchedPosition m = idx.getMatches().get(0);
      assertThat(List.of(m.getA().getStart(), m.getA().getEnd(), m.getB().getStart(), m.getB().getEnd(), m.getMatchLen()))
          .containsExactly(4L, 7L, 5L, 8L, 4L);
      assertThat(j.lcs("key1", "key2", LCSParams.LCSParams().idx()).getMatches()).hasSize(2);
      assertThatThrownBy(() -> j.lcs("key1", "key2", LCSParams.LCSParams().idx().len()))
          .hasMessage("ERR If you want both the length and indexes, please just use IDX.");
    }
  }

  /** GETRANGE, SUBSTR and SETRANGE at their edges, as Redis answers them. */
  @Test
  void rangeCommands_edgeCases() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.set("r", "Hello World");
      assertThat(j.getrange("r", -4, -1)).isEqualTo("orld");
      assertThat(j.getrange("r", 5, 3)).isEmpty();
      assertThat(j.getrange("r", -5000, 10000)).isEqualTo("Hello World");
      assertThat(j.getrange("r", 0, -100)).isEqualTo("H");
      assertThat(j.getrange("r-missing", 0, 1)).isEmpty();
      assertThat(j.substr("r", 0, 4)).isEqualTo("Hello");
      assertThat(j.setrange("r-missing", 10, "")).isZero();
      assertThat(j.exists("r-missing")).isFalse();
      assertThat(j.setrange("r-pad", 3, "ab")).isEqualTo(5);
      assertThat(j.get("r-pad")).isEqualTo("\0\0\0ab");
      assertThatThrownBy(() -> j.setrange("r", 536870911, "ab"))
          .hasMessage("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
      assertThatThrownBy(() -> j.setrange("r", Long.MAX_VALUE, "x"))
          .hasMessage("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
      assertThatThrownBy(() -> j.setrange("r", -1, "x")).hasMessage("ERR offset is out of range");
      assertThat(j.get("r")).isEqualTo("Hello World");
    }
  }

  private static String floatReply(Jedis j, String key, String by) {
    Object r = j.sendCommand(() -> SafeEncoder.encode("INCRBYFLOAT"), key, by);
    return SafeEncoder.encode((byte[]) r);
  }
}
