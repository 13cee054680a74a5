package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kvstore.Durability;
import redis.clients.jedis.Jedis;

/**
 * Plain SETs of many connections are written in groups (one batch per table per event-loop turn):
 * far fewer store writes than SETs (INFO's {@code kvstore_set_writes}), every write is acknowledged
 * only once it is in, each connection's replies stay in order, an invalid SET in a group fails
 * alone, and a dropped table does not poison later writes.
 */
class WriteCoalescingTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(value = Durability.class, names = {"SYNC", "PERIODIC"})
  void manyConnectionsPipelining_everyReplyInOrder_everyValueStored(Durability durability) throws Exception {
    int connections = 16;
    int perConnection = 300;
    try (KVStoreServer server = TestServers.start(dir, durability)) {
      ExecutorService pool = Executors.newFixedThreadPool(connections);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
          int conn = c;
          done.add(pool.submit(() -> {
            try (RawClient raw = new RawClient(server.respPort())) {
              assertThat(raw.command("PING").readExpected("+PONG\r\n")).isEqualTo("+PONG\r\n");
              StringBuilder expected = new StringBuilder();
              for (int i = 0; i < perConnection; i++) {
                raw.command("SET", "k" + conn + "-" + i, "v" + i);
                expected.append("+OK\r\n");
                if (i % 50 == 0) {
                  raw.command("GET", "k" + conn + "-" + i); // a read between writes: order kept
                  String v = "v" + i;
                  expected.append('$').append(v.length()).append("\r\n").append(v).append("\r\n");
                }
                if (i == 100) {
                  raw.command("SET", "", "empty key"); // invalid: fails alone
                  expected.append("-ERR ");
                  assertThat(raw.readExpected(expected.toString())).isEqualTo(expected.toString());
                  expected.setLength(0);
                  String rest = readLine(raw);
                  assertThat(rest).contains("key");
                }
              }
              assertThat(raw.readExpected(expected.toString())).isEqualTo(expected.toString());
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      try (Jedis j = new Jedis("127.0.0.1", server.respPort())) {
        assertThat(j.dbSize()).isEqualTo((long) connections * perConnection);
        for (int c = 0; c < connections; c++) {
          assertThat(j.get("k" + c + "-" + (perConnection - 1))).isEqualTo("v" + (perConnection - 1));
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = Durability.class, names = {"SYNC", "PERIODIC"})
  void manyConnectionsPipelining_setsWrittenInFarFewerBatches(Durability durability) throws Exception {
    int connections = 16;
    int perConnection = 300;
    try (KVStoreServer server = TestServers.start(dir, durability);
        Jedis info = new Jedis("127.0.0.1", server.respPort())) {
      info.set("resolve", "the table"); // so no SET below is a connection's first of the server
      long writesBefore = stat(info, "kvstore_set_writes");
      long setsBefore = stat(info, "kvstore_sets_written");
      ExecutorService pool = Executors.newFixedThreadPool(connections);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
          int conn = c;
          done.add(pool.submit(() -> {
            try (RawClient raw = new RawClient(server.respPort())) {
              // One write of the whole pipeline, then the replies: the server sees many SETs at once.
              StringBuilder pipeline = new StringBuilder(command("GET", "warm-up"));
              for (int i = 0; i < perConnection; i++) {
                pipeline.append(command("SET", "p" + conn + "-" + i, "v" + i));
              }
              raw.send(pipeline.toString());
              String expected = "$-1\r\n" + "+OK\r\n".repeat(perConnection);
              assertThat(raw.readExpected(expected)).isEqualTo(expected);
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      long sets = stat(info, "kvstore_sets_written") - setsBefore;
      long writes = stat(info, "kvstore_set_writes") - writesBefore;
      assertThat(sets).isEqualTo((long) connections * perConnection);
      // Written one by one, writes == sets. Coalesced, a connection's pipeline goes in a few runs
      // (each at most RespCommandHandler.MAX_BATCH SETs) and runs of one loop turn share a batch.
      assertThat(writes).as("store writes for %d SETs", sets).isLessThanOrEqualTo(sets / 10);
    }
  }

  private static String command(String... args) {
    StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
    for (String a : args) {
      sb.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
    }
    return sb.toString();
  }

  /** A number field of INFO stats. */
  private static long stat(Jedis j, String field) {
    for (String line : j.info("stats").split("\r\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    throw new AssertionError("INFO stats has no " + field);
  }

  @Test
  void droppedTable_laterSetsGoToTheRecreatedTable() throws Exception {
    try (KVStoreServer server = TestServers.start(dir, Durability.SYNC);
        Jedis a = new Jedis("127.0.0.1", server.respPort());
        Jedis b = new Jedis("127.0.0.1", server.respPort())) {
      a.select(3);
      b.select(3);
      assertThat(a.set("x", "1")).isEqualTo("OK");
      assertThat(a.set("x", "2")).isEqualTo("OK");
      assertThat(b.sendCommand(() -> "KV.DROP".getBytes(), "default", "3")).isNotNull();
      // a's cached table is gone: at most one error, then SELECT's table is created again.
      String first;
      try {
        first = a.set("y", "1");
      } catch (redis.clients.jedis.exceptions.JedisDataException e) {
        first = e.getMessage();
      }
      assertThat(first).satisfiesAnyOf(
          s -> assertThat(s).isEqualTo("OK"), s -> assertThat(s).containsIgnoringCase("no such table"));
      assertThat(a.set("z", "1")).isEqualTo("OK");
      assertThat(a.get("z")).isEqualTo("1");
    }
  }

  private static String readLine(RawClient raw) throws Exception {
    StringBuilder sb = new StringBuilder();
    while (!sb.toString().endsWith("\r\n")) {
      sb.append(raw.read(1));
    }
    return sb.toString();
  }
}
