package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kvstore.Durability;
import org.kvstore.testkit.Seeds;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Runs of pipelined reads go to a read helper thread while the event loop goes on with other
 * connections; whichever thread runs them, each connection's replies stay in order and every read
 * sees the connection's earlier writes. Clients are Jedis pipelines, checked against a model.
 */
class PipelinedReadsTest {
  private static final Object ANY = new Object();

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(value = Durability.class, names = {"SYNC", "PERIODIC"})
  void pipelinedReadsBetweenWrites_seeEveryEarlierWrite_inOrder(Durability durability) throws Exception {
    long seed = Seeds.seed("PipelinedReadsTest");
    int connections = 8;
    int rounds = durability == Durability.SYNC ? 40 : 120;
    ServerConfig config = TestServers.config(dir)
        .set("durability", durability.name())
        .set("io-threads", "1")
        .set("read-threads", "1")
        .build();
    try (KVStoreServer server = KVStoreServer.start(config)) {
      ExecutorService pool = Executors.newFixedThreadPool(connections);
      try {
        List<Future<Integer>> done = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
          long connSeed = seed + c;
          int conn = c;
          done.add(pool.submit(() -> runConnection(server.respPort(), conn, rounds, new Random(connSeed))));
        }
        int checked = 0;
        for (Future<Integer> f : done) {
          try {
            checked += f.get();
          } catch (ExecutionException e) {
            throw new AssertionError("seed " + seed + ": " + e.getCause().getMessage(), e.getCause());
          }
        }
        assertThat(checked).as("seed %d", seed).isGreaterThan(connections * rounds);
      } finally {
        pool.shutdownNow();
      }
      assertThat(server.offloadedReadRuns()).as("runs handed to the read helper, seed %d", seed).isPositive();
    }
  }

  /**
   * A pipeline of GETs is read as multi-gets; a GET whose key is over the size limit still gets
   * its own error and the GETs around it their values, and every GET counts as a command.
   */
  @ParameterizedTest
  @EnumSource(value = Durability.class, names = {"SYNC", "PERIODIC"})
  void pipelinedGets_withAnOversizedKey_answerEachGetOnItsOwn(Durability durability) {
    ServerConfig config = TestServers.config(dir).set("durability", durability.name()).build();
    try (KVStoreServer server = KVStoreServer.start(config);
        Jedis jedis = new Jedis("127.0.0.1", server.respPort())) {
      for (int i = 0; i < 50; i++) {
        jedis.set("k" + i, "v" + i);
      }
      String big = "k".repeat(70_000);
      long before = commandsProcessed(jedis);
      Pipeline p = jedis.pipelined();
      List<Response<String>> gets = new ArrayList<>();
      int n = 200;
      for (int i = 0; i < n; i++) {
        gets.add(p.get(i == 77 ? big : "k" + (i % 60)));
      }
      p.sync();
      for (int i = 0; i < n; i++) {
        if (i == 77) {
          int at = i;
          assertThatThrownBy(() -> gets.get(at).get())
              .isInstanceOf(JedisDataException.class)
              .hasMessageContaining("ERR invalid key: must be 1 to 65536 bytes, was 70000 (table default.0)");
        } else {
          assertThat(gets.get(i).get()).as("GET %d", i).isEqualTo(i % 60 < 50 ? "v" + (i % 60) : null);
        }
      }
      assertThat(commandsProcessed(jedis) - before).as("commands counted, the second INFO included")
          .isEqualTo(n + 1);
    }
  }

  private static long commandsProcessed(Jedis jedis) {
    for (String line : jedis.info("stats").split("\r\n")) {
      if (line.startsWith("total_commands_processed:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1));
      }
    }
    throw new AssertionError("no total_commands_processed in INFO stats");
  }

  /** One connection's pipelines of writes and read runs on its own keys; returns the replies checked. */
  private static int runConnection(int port, int conn, int rounds, Random rnd) {
    Map<String, String> model = new HashMap<>();
    int checked = 0;
    try (Jedis jedis = new Jedis("127.0.0.1", port)) {
      for (int round = 0; round < rounds; round++) {
        Pipeline p = jedis.pipelined();
        List<Response<?>> responses = new ArrayList<>();
        List<Object> expected = new ArrayList<>();
        int writes = rnd.nextInt(3);
        for (int i = 0; i < writes; i++) {
          String k = key(conn, rnd);
          String v = "v" + round + "-" + i + "-" + "x".repeat(rnd.nextInt(40));
          model.put(k, v);
          responses.add(p.set(k, v));
          expected.add("OK");
        }
        int reads = 1 + rnd.nextInt(24);
        for (int i = 0; i < reads; i++) {
          String k = key(conn, rnd);
          String k2 = key(conn, rnd);
          switch (rnd.nextInt(6)) {
            case 0, 4, 5 -> { // GETs in a row are read together (a multi-get)
              responses.add(p.get(k));
              expected.add(model.get(k));
            }
            case 1 -> {
              responses.add(p.mget(k, k2));
              List<String> both = new ArrayList<>();
              both.add(model.get(k));
              both.add(model.get(k2));
              expected.add(both);
            }
            case 2 -> {
              responses.add(p.exists(k, k2));
              expected.add((long) ((model.containsKey(k) ? 1 : 0) + (model.containsKey(k2) ? 1 : 0)));
            }
            default -> {
              responses.add(p.strlen(k));
              expected.add((long) (model.containsKey(k) ? model.get(k).length() : 0));
            }
          }
        }
        if (rnd.nextInt(8) == 0) {
          String k = key(conn, rnd);
          model.remove(k);
          responses.add(p.del(k));
          expected.add(ANY); // the count depends on earlier rounds; the reads after it check the delete
        }
        p.sync();
        for (int i = 0; i < responses.size(); i++) {
          Object want = expected.get(i);
          if (want != ANY) {
            assertThat(responses.get(i).get())
                .as("connection %d, round %d, reply %d of %d", conn, round, i, responses.size())
                .isEqualTo(want);
            checked++;
          }
        }
      }
    }
    return checked;
  }

  private static String key(int conn, Random rnd) {
    return "c" + conn + "-k" + rnd.nextInt(16);
  }
}
