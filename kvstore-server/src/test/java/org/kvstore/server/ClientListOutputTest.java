package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * CLIENT LIST and CLIENT INFO report a client's output buffer as Redis 7 does ({@code obl}, {@code oll},
 * {@code omem}, {@code tot-mem}, in Redis' field order): a Jedis pipeline that stops reading shows its
 * queued replies in {@code omem}, and once it reads on into a reply over the hard limit it is
 * disconnected and gone from the list.
 */
class ClientListOutputTest {
  /** Redis 7.2's CLIENT LIST fields, in order. */
  private static final List<String> REDIS_FIELDS = List.of("id", "addr", "laddr", "fd", "name", "age", "idle",
      "flags", "db", "sub", "psub", "ssub", "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp",
      "obl", "oll", "omem", "tot-mem", "events", "cmd", "user", "redir", "resp", "lib-name", "lib-ver");

  @TempDir Path dir;

  @Test
  void clientList_clientStopsReading_omemAboveZero_thenDisconnectedAtTheHardLimit() throws Exception {
    try (KVStoreServer server = KVStoreServer.start(TestServers.config(dir)
            .set("client-output-buffer-hard-limit", "2mb").set("client-output-buffer-soft-seconds", "0").build());
        Jedis admin = new Jedis("127.0.0.1", server.respPort())) {
      admin.set(bytes("medium"), new byte[128 * 1024]);
      admin.set(bytes("huge"), new byte[3 << 20]);
      long before = disconnections(admin);
      Map<String, String> info = fields(admin.clientInfo());
      assertThat(info).containsEntry("obl", "0").containsEntry("oll", "0").containsKeys("omem", "tot-mem");
      assertRedisOrder(info);

      try (Jedis slow = new Jedis("127.0.0.1", server.respPort())) {
        slow.clientSetname("slow");
        Pipeline p = slow.pipelined();
        // 400 GETs of 128 KiB (50 MB of replies; Jedis sends them as its buffer fills) and then a
        // GET whose reply alone is over the hard limit, none of them read yet.
        for (int i = 0; i < 400; i++) {
          p.get(bytes("medium"));
        }
        p.get(bytes("huge"));

        // oll counts the replies flushed to the socket's queue: once the server has paused for the
        // client, all of them; while it is still writing, those of this loop turn are not yet.
        Map<String, String> line = awaitLine(admin, "slow",
            l -> Long.parseLong(l.get("omem")) >= 256 * 1024 && Long.parseLong(l.get("oll")) > 0);
        assertRedisOrder(line);
        long omem = Long.parseLong(line.get("omem"));
        assertThat(omem).as("omem of a client that stopped reading: about the write-buffer high-water mark")
            .isLessThanOrEqualTo(2L << 20);
        assertThat(line.get("obl")).isEqualTo("0");
        assertThat(Long.parseLong(line.get("tot-mem"))).isGreaterThanOrEqualTo(omem);
        assertThat(line.get("cmd")).isEqualTo("get");

        // Reading on, the client gets its GETs and the server comes to the huge one: disconnected.
        assertThatThrownBy(p::sync).isInstanceOf(JedisConnectionException.class);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (disconnections(admin) == before || admin.clientList().contains(" name=slow ")) {
        assertThat(System.nanoTime()).as("slow disconnected and counted; %s", admin.clientList()).isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(disconnections(admin)).isEqualTo(before + 1);
    }
  }

  /** Polls CLIENT LIST (up to 10 s) until the line of the client named {@code name} passes {@code test}. */
  private static Map<String, String> awaitLine(Jedis admin, String name,
      java.util.function.Predicate<Map<String, String>> test) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    String list = "";
    while (System.nanoTime() < deadline) {
      list = admin.clientList();
      for (String l : list.split("\n")) {
        Map<String, String> f = fields(l);
        if (name.equals(f.get("name")) && test.test(f)) {
          return f;
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no CLIENT LIST line of " + name + " as expected within 10 s: " + list);
  }

  /** A CLIENT LIST line's fields, as redis-py's parser splits them. */
  private static Map<String, String> fields(String line) {
    Map<String, String> f = new LinkedHashMap<>();
    for (String kv : line.trim().split(" ")) {
      int eq = kv.indexOf('=');
      f.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return f;
  }

  /** The line's Redis fields come in Redis' order. */
  private static void assertRedisOrder(Map<String, String> line) {
    List<String> ours = new ArrayList<>(line.keySet());
    ours.retainAll(REDIS_FIELDS);
    List<String> redis = new ArrayList<>(REDIS_FIELDS);
    redis.retainAll(ours);
    assertThat(ours).isEqualTo(redis).contains("obl", "oll", "omem", "tot-mem");
  }

  private static long disconnections(Jedis j) {
    for (String line : j.info("stats").split("\r\n")) {
      if (line.startsWith("client_output_buffer_limit_disconnections:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    throw new AssertionError("INFO stats has no client_output_buffer_limit_disconnections");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
