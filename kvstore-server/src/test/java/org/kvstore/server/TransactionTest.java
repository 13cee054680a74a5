package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Durability;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.ScanResult;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH through the real clients (Jedis' {@code Transaction},
 * Lettuce's {@code multi()}/{@code exec()}) and on the wire, against a server with sync durability
 * (so EXEC waits for its fsync on a worker, the harder case): Redis' replies and errors, all or
 * nothing, watched keys, and isolation between concurrent transactions.
 */
class TransactionTest {
  @TempDir static Path dir;
  @TempDir static Path watchDir;
  static KVStoreServer server;
  static int port;
  /** A server on the memory engine, for the WATCH tests: WATCH compares the entries' versions. */
  static KVStoreServer watchServer;
  static int watchPort;

  @BeforeAll
  static void start() {
    server = TestServers.start(dir, Durability.SYNC);
    port = server.respPort();
    watchServer = KVStoreServer.start(TestServers.config(watchDir)
        .set("durability", Durability.SYNC.name()).set("default-engine", "memory").build());
    watchPort = watchServer.respPort();
  }

  @AfterAll
  static void stop() {
    server.close();
    watchServer.close();
  }

  private static Jedis jedis() {
    return new Jedis("127.0.0.1", port);
  }

  private static Jedis watching() {
    return new Jedis("127.0.0.1", watchPort);
  }

  @Test
  void multiExec_runsTheQueuedCommandsInOrder_andSeesItsOwnWrites() {
    try (Jedis j = jedis()) {
      j.del("tx:a", "tx:n");
      Transaction t = j.multi();
      Response<String> set = t.set("tx:a", "1");
      Response<Long> incr = t.incr("tx:n");
      Response<Long> incrA = t.incrBy("tx:a", 41);
      Response<String> get = t.get("tx:a");
      Response<Long> exists = t.exists("tx:a", "tx:n", "tx:missing");
      Response<Long> del = t.del("tx:n");
      List<Object> replies = t.exec();
      assertThat(replies).hasSize(6);
      assertThat(set.get()).isEqualTo("OK");
      assertThat(incr.get()).isEqualTo(1);
      assertThat(incrA.get()).isEqualTo(42);
      assertThat(get.get()).isEqualTo("42");
      assertThat(exists.get()).isEqualTo(2);
      assertThat(del.get()).isEqualTo(1);
      assertThat(j.get("tx:a")).isEqualTo("42");
      assertThat(j.exists("tx:n")).isFalse();
    }
  }

  @Test
  void aCommandRefusedWhileQueueing_discardsTheWholeTransaction() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.command("SET", "tx:abort", "before");
      c.readExpected("+OK\r\n");
      c.command("MULTI").command("SET", "tx:abort", "after").command("GET").command("NOSUCH", "x")
          .command("FLUSHDB").command("EXEC");
      String expected = "+OK\r\n+QUEUED\r\n"
          + "-ERR wrong number of arguments for 'get' command\r\n"
          + "-ERR unknown command 'NOSUCH', with args beginning with: 'x' \r\n"
          + "-ERR Command not allowed inside a transaction\r\n"
          + "-EXECABORT Transaction discarded because of previous errors.\r\n";
      assertThat(c.readExpected(expected)).isEqualTo(expected);
      c.command("GET", "tx:abort");
      assertThat(c.readExpected("$6\r\nbefore\r\n")).isEqualTo("$6\r\nbefore\r\n");
    }
  }

  /**
   * One pipelined write of SETs and GETs around a transaction: outside MULTI they would be coalesced
   * into one batch and handed to a read helper; inside, they must be queued and run by EXEC.
   */
  @Test
  void pipelinedTransaction_queuesTheSetsAndGetsTheServerWouldOtherwiseBatch() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.command("SET", "tx:p0", "a").command("SET", "tx:p1", "b").command("MULTI");
      StringBuilder expected = new StringBuilder("+OK\r\n+OK\r\n+OK\r\n");
      StringBuilder execReply = new StringBuilder("*12\r\n");
      for (int i = 0; i < 6; i++) {
        c.command("SET", "tx:q" + i, "v" + i);
        expected.append("+QUEUED\r\n");
        execReply.append("+OK\r\n");
      }
      for (int i = 0; i < 6; i++) {
        c.command("GET", "tx:q" + i);
        expected.append("+QUEUED\r\n");
        execReply.append("$2\r\nv").append(i).append("\r\n");
      }
      c.command("EXEC").command("GET", "tx:q5").command("GET", "tx:p1");
      expected.append(execReply).append("$2\r\nv5\r\n$1\r\nb\r\n");
      assertThat(c.readExpected(expected.toString())).isEqualTo(expected.toString());
    }
  }

  /** KEYS, SCAN, DBSIZE and KV.RANGE in a transaction see the table with the transaction's writes so far. */
  @Test
  void scansInATransaction_seeItsOwnWrites() {
    try (Jedis j = jedis()) {
      j.select(7);
      j.flushDB();
      j.mset("s:a", "1", "s:b", "2", "s:c", "3");
      Transaction t = j.multi();
      t.del("s:b");
      t.set("s:ab", "new");
      t.set("s:c", "changed");
      Response<Set<String>> keys = t.keys("s:*");
      Response<Object> size = t.sendCommand(Protocol.Command.DBSIZE, new String[0]);
      Response<ScanResult<String>> scan = t.scan("0");
      t.exec();
      assertThat(keys.get()).containsExactlyInAnyOrder("s:a", "s:ab", "s:c");
      assertThat(size.get()).isEqualTo(3L);
      assertThat(scan.get().getResult()).containsExactly("s:a", "s:ab", "s:c");
      Transaction r = j.multi();
      r.set("s:0", "zero");
      r.del("s:ab");
      Response<Object> kvRange = r.sendCommand(() -> "KV.RANGE".getBytes(StandardCharsets.UTF_8), "s:", "s:b");
      r.exec();
      @SuppressWarnings("unchecked")
      List<byte[]> flat = (List<byte[]>) kvRange.get();
      assertThat(flat.stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList()).containsExactly("s:0", "zero", "s:a", "1");
      j.select(0);
    }
  }

  @Test
  void aCommandFailingAtExec_getsItsError_andTheOthersStillRun() {
    try (Jedis j = jedis()) {
      j.set("tx:text", "not a number");
      Transaction t = j.multi();
      t.set("tx:ok", "v");
      t.incr("tx:text");
      t.append("tx:ok", "w");
      List<Object> replies = t.exec();
      assertThat(replies.get(0)).isEqualTo("OK");
      assertThat(replies.get(1)).isInstanceOf(JedisDataException.class);
      assertThat(((JedisDataException) replies.get(1)).getMessage())
          .isEqualTo("ERR value is not an integer or out of range");
      assertThat(replies.get(2)).isEqualTo(2L);
      assertThat(j.get("tx:ok")).isEqualTo("vw");
      assertThat(j.get("tx:text")).isEqualTo("not a number");
    }
  }

  @Test
  void discard_dropsTheQueue_andControlErrorsUseRedisTexts() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.command("EXEC").command("DISCARD").command("MULTI").command("MULTI").command("WATCH", "k")
          .command("SET", "tx:discarded", "v").command("DISCARD").command("EXISTS", "tx:discarded");
      String expected = "-ERR EXEC without MULTI\r\n-ERR DISCARD without MULTI\r\n+OK\r\n"
          + "-ERR MULTI calls can not be nested\r\n-ERR WATCH inside MULTI is not allowed\r\n"
          + "+QUEUED\r\n+OK\r\n:0\r\n";
      assertThat(c.readExpected(expected)).isEqualTo(expected);
    }
  }

  @Test
  void watch_abortsExecWhenAnotherClientChangedTheKey_withANullArray() throws Exception {
    try (RawClient c = new RawClient(watchPort); Jedis other = watching()) {
      other.set("tx:w", "1");
      c.command("WATCH", "tx:w");
      c.readExpected("+OK\r\n");
      other.set("tx:w", "2");
      c.command("MULTI").command("SET", "tx:w", "mine").command("EXEC");
      assertThat(c.readExpected("+OK\r\n+QUEUED\r\n*-1\r\n")).isEqualTo("+OK\r\n+QUEUED\r\n*-1\r\n");
      assertThat(other.get("tx:w")).isEqualTo("2");
      // The watch ended with EXEC: the next transaction runs.
      c.command("MULTI").command("SET", "tx:w", "mine").command("EXEC");
      assertThat(c.readExpected("+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n")).isEqualTo("+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n");
      // RESP3: the aborted EXEC is the null "_".
      c.command("HELLO", "3");
      c.readUntil("$7\r\nmodules\r\n*0\r\n");
      c.command("WATCH", "tx:w");
      c.readExpected("+OK\r\n");
      other.del("tx:w");
      c.command("MULTI").command("GET", "tx:w").command("EXEC");
      assertThat(c.readExpected("+OK\r\n+QUEUED\r\n_\r\n")).isEqualTo("+OK\r\n+QUEUED\r\n_\r\n");
    }
  }

  /** As in Redis: any write of a watched key aborts, also one that writes its value back. */
  @Test
  void watch_keyChangedAndChangedBack_abortsExec() {
    try (Jedis j = watching(); Jedis other = watching()) {
      j.set("tx:back", "1");
      j.watch("tx:back");
      other.set("tx:back", "2");
      other.set("tx:back", "1");
      Transaction t = j.multi();
      t.set("tx:back", "mine");
      assertThat(t.exec()).isNull();
      assertThat(j.get("tx:back")).isEqualTo("1");

      j.watch("tx:back");
      other.expire("tx:back", 100);
      t = j.multi();
      t.get("tx:back");
      assertThat(t.exec()).as("an expiry set meanwhile").isNull();
    }
  }

  @Test
  void watch_unchangedKey_unwatch_andAKeyOfAnotherTable() {
    try (Jedis j = watching(); Jedis other = watching()) {
      j.set("tx:u", "1");
      j.watch("tx:u", "tx:absent");
      Transaction t = j.multi();
      t.incr("tx:u");
      assertThat(t.exec()).containsExactly(2L);

      j.watch("tx:u");
      other.set("tx:u", "changed");
      assertThat(j.unwatch()).isEqualTo("OK");
      t = j.multi();
      t.get("tx:u");
      assertThat(t.exec()).containsExactly("changed");

      // A key watched on table 0 and changed there aborts a transaction run on table 1.
      j.watch("tx:u");
      other.set("tx:u", "again");
      j.select(1);
      t = j.multi();
      t.set("tx:in-1", "v");
      assertThat(t.exec()).isNull();
      assertThat(j.exists("tx:in-1")).isFalse();
      j.select(0);
    }
  }

  @Test
  void lettuce_multiExec_andDiscardedResult() {
    RedisClient client = RedisClient.create();
    try (StatefulRedisConnection<String, String> c = client.connect(
            RedisURI.builder().withHost("127.0.0.1").withPort(watchPort).build());
        Jedis other = watching()) {
      RedisCommands<String, String> r = c.sync();
      r.set("tx:l", "5");
      assertThat(r.multi()).isEqualTo("OK");
      r.incrby("tx:l", 5);
      r.get("tx:l");
      TransactionResult res = r.exec();
      assertThat(res.wasDiscarded()).isFalse();
      assertThat((Long) res.get(0)).isEqualTo(10L);
      assertThat((String) res.get(1)).isEqualTo("10");

      r.watch("tx:l");
      other.set("tx:l", "11");
      r.multi();
      r.set("tx:l", "lost");
      assertThat(r.exec().wasDiscarded()).isTrue();
      assertThat(r.get("tx:l")).isEqualTo("11");
    } finally {
      client.shutdown();
    }
  }

  /** The queue of a connection is bounded by the request limits: 16 commands, 2 KiB of arguments here. */
  @Test
  void queuePastTheLimits_isRefused_andTheTransactionDiscarded(@TempDir Path own) throws Exception {
    try (KVStoreServer small = KVStoreServer.start(TestServers.config(own)
            .set("proto-max-multibulk-len", "16").set("proto-max-bulk-len", "2k").build());
        RawClient c = new RawClient(small.respPort())) {
      c.command("MULTI");
      c.readExpected("+OK\r\n");
      for (int i = 0; i < 16; i++) {
        c.command("INCR", "tx:limit");
        c.readExpected("+QUEUED\r\n");
      }
      c.command("INCR", "tx:limit").command("EXEC").command("EXISTS", "tx:limit");
      String expected = "-ERR transaction too large: at most 16 commands and 2048 bytes of arguments may be queued\r\n"
          + "-EXECABORT Transaction discarded because of previous errors.\r\n:0\r\n";
      assertThat(c.readExpected(expected)).isEqualTo(expected);

      String value = "v".repeat(1100);
      c.command("MULTI").command("SET", "tx:big", value).command("SET", "tx:big", value)
          .command("EXEC").command("EXISTS", "tx:big");
      expected = "+OK\r\n+QUEUED\r\n-ERR transaction too large: at most 16 commands and 2048 bytes of"
          + " arguments may be queued\r\n-EXECABORT Transaction discarded because of previous errors.\r\n:0\r\n";
      assertThat(c.readExpected(expected)).isEqualTo(expected);
    }
  }

  @Test
  void aTransactionTheStoreRefuses_writesNothing() {
    try (Jedis j = jedis()) {
      j.set("tx:keep", "kept");
      Transaction t = j.multi();
      t.set("tx:keep", "changed");
      t.set("", "an empty key is refused by the store");
      assertThatThrownBy(t::exec).isInstanceOf(JedisDataException.class).hasMessageContaining("key");
      assertThat(j.get("tx:keep")).isEqualTo("kept");
    }
  }

  /**
   * Writers move two counters together in transactions; readers read both in transactions and
   * must never see them apart, and WATCH-based increments from several clients must not lose one.
   */
  @Test
  void concurrentTransactions_areIsolated_andWatchedIncrementsAreNotLost() throws Exception {
    try (Jedis j = watching()) {
      j.mset("tx:x", "0", "tx:y", "0", "tx:cas", "0");
    }
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong torn = new AtomicLong();
    AtomicLong committed = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<?>> tasks = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      tasks.add(pool.submit(() -> {
        try (Jedis j = watching()) {
          for (int i = 0; i < 300; i++) {
            Transaction t = j.multi();
            t.incr("tx:x");
            t.incr("tx:y");
            t.exec();
          }
        }
        return null;
      }));
    }
    for (int w = 0; w < 3; w++) {
      tasks.add(pool.submit(() -> {
        try (Jedis j = watching()) {
          for (int i = 0; i < 100; ) {
            j.watch("tx:cas");
            long v = Long.parseLong(j.get("tx:cas"));
            Transaction t = j.multi();
            t.set("tx:cas", Long.toString(v + 1));
            if (t.exec() != null) {
              committed.incrementAndGet();
              i++;
            }
          }
        }
        return null;
      }));
    }
    Future<?> reader = pool.submit(() -> {
      try (Jedis j = watching()) {
        while (!stop.get()) {
          Transaction t = j.multi();
          t.get("tx:x");
          t.get("tx:y");
          List<Object> r = t.exec();
          if (!r.get(0).equals(r.get(1))) {
            torn.incrementAndGet();
          }
        }
      }
      return null;
    });
    for (Future<?> f : tasks) {
      f.get(120, TimeUnit.SECONDS);
    }
    stop.set(true);
    reader.get(30, TimeUnit.SECONDS);
    pool.shutdown();
    try (Jedis j = watching()) {
      assertThat(j.get("tx:x")).isEqualTo("600");
      assertThat(j.get("tx:y")).isEqualTo("600");
      assertThat(torn.get()).as("reads that saw one counter moved without the other").isZero();
      assertThat(committed.get()).isEqualTo(300);
      assertThat(j.get("tx:cas")).as("each committed increment counted once").isEqualTo("300");
    }
  }
}
