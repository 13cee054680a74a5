package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

/** The server as a process: start-up line, one-line start-up errors with exit 1, SIGTERM, kill -9. */
class ServerProcessTest {
  @TempDir Path dir;

  private static final String[] NO_EXTRA_PORTS = {"--http-port", "-1", "--thrift-port", "-1"};

  private ServerProcess launch(Path dataDir, String... more) throws Exception {
    String[] args = new String[4 + NO_EXTRA_PORTS.length + more.length];
    args[0] = "--data-dir";
    args[1] = dataDir.toString();
    args[2] = "--resp-port";
    args[3] = "0";
    System.arraycopy(NO_EXTRA_PORTS, 0, args, 4, NO_EXTRA_PORTS.length);
    System.arraycopy(more, 0, args, 4 + NO_EXTRA_PORTS.length, more.length);
    return ServerProcess.launch(args);
  }

  private static void assertOneLineError(ServerProcess p, String fragment) throws Exception {
    assertThat(p.awaitExit()).isEqualTo(1);
    assertThat(p.stderr()).hasSize(1);
    assertThat(p.stderr().get(0)).startsWith("kvstore-server: ").contains(fragment);
    assertThat(String.join("\n", p.stdout())).doesNotContain("\tat ").doesNotContain("Exception in thread");
  }

  @Test
  void startupLine_namesVersionDirEnginesAndPorts_sigtermExitsZero() throws Exception {
    try (ServerProcess p = ServerProcess.launch("--data-dir", dir.resolve("d").toString(), "--resp-port", "0",
        "--http-port", "0", "--thrift-port", "0")) {
      int port = p.awaitPort();
      String line = p.stdout().stream().filter(l -> l.contains(" started: ")).findFirst().orElseThrow();
      assertThat(line).contains("kvstore-server ").contains("data dir " + dir.resolve("d"))
          .contains("engines [").contains("RESP on 127.0.0.1:" + port)
          .contains("HTTP on 127.0.0.1:").contains("Thrift on 127.0.0.1:");
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        assertThat(j.ping()).isEqualTo("PONG");
      }
      p.sigterm();
      int code = p.awaitExit();
      assertThat(code).isZero();
      assertThat(p.stdout()).as("stderr: %s", p.stderr()).anyMatch(l -> l.contains("stopped"));
    }
  }

  @Test
  void portInUse_oneLineErrorExitOne() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        ServerProcess p = ServerProcess.launch("--data-dir", dir.resolve("d").toString(),
            "--resp-port", Integer.toString(taken.getLocalPort()), "--http-port", "-1", "--thrift-port", "-1")) {
      assertOneLineError(p, "the port is in use");
    }
  }

  @Test
  void dataDirHeldByAnotherProcess_oneLineErrorExitOne() throws Exception {
    try (ServerProcess first = launch(dir)) {
      first.awaitPort();
      try (ServerProcess second = launch(dir)) {
        assertOneLineError(second, "is in use by another process");
      }
      first.sigterm();
      assertThat(first.awaitExit()).isZero();
    }
  }

  @Test
  void unusableDataDir_oneLineErrorExitOne() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    try (ServerProcess p = launch(file)) {
      assertOneLineError(p, "is not a directory");
    }
  }

  @Test
  void badConfig_oneLineErrorExitOne() throws Exception {
    Path cfg = Files.writeString(dir.resolve("server.yaml"), "resp-port: 0\nno-such-key: 1\n");
    try (ServerProcess p = launch(dir.resolve("d"), "--config", cfg.toString())) {
      assertOneLineError(p, "unknown key 'no-such-key'");
    }
  }

  private static boolean durableEngineAvailable(Path scratch) {
    try (KVStore s = KVStore.open(scratch, StoreOptions.defaults())) {
      Set<String> engines = s.engines();
      return engines.contains("lsm") || engines.contains("bplus");
    }
  }

  @Test
  void valuesWrittenBeforeSigterm_areThereAfterRestart() throws Exception {
    Assumptions.assumeTrue(durableEngineAvailable(dir.resolve("probe")),
        "no durable engine (lsm, bplus) on the class path yet: the memory engine forgets on restart");
    Path data = dir.resolve("data");
    try (ServerProcess p = launch(data, "--durability", "periodic")) {
      int port = p.awaitPort();
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        for (int i = 0; i < 500; i++) {
          j.set("term:" + i, "v" + i);
        }
        j.select(3);
        j.set("in-3", "x");
      }
      p.sigterm();
      assertThat(p.awaitExit()).isZero();
    }
    try (ServerProcess p = launch(data)) {
      int port = p.awaitPort();
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        for (int i = 0; i < 500; i++) {
          assertThat(j.get("term:" + i)).isEqualTo("v" + i);
        }
        j.select(3);
        assertThat(j.get("in-3")).isEqualTo("x");
      }
      p.sigterm();
      assertThat(p.awaitExit()).isZero();
    }
  }

  /**
   * Writers run transactions that set eight keys of their own to one number, the next each time, and
   * the server is killed with SIGKILL while they run: after the restart each writer's eight keys
   * hold one number (no transaction half there), at least its last acknowledged one.
   */
  @Test
  void transactionsRunningAtKill9_areAllOrNothing_andAcknowledgedOnesSurvive() throws Exception {
    Assumptions.assumeTrue(durableEngineAvailable(dir.resolve("probe")),
        "no durable engine (lsm, bplus) on the class path yet: the memory engine forgets on restart");
    Path data = dir.resolve("data");
    int writers = 4;
    int keys = 8;
    long[] acknowledged = new long[writers];
    try (ServerProcess p = launch(data, "--durability", "sync")) {
      int port = p.awaitPort();
      AtomicBoolean killed = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        Thread t = new Thread(() -> {
          try (Jedis j = new Jedis("127.0.0.1", port)) {
            for (long n = 1; !killed.get(); n++) {
              Transaction tx = j.multi();
              for (int k = 0; k < keys; k++) {
                tx.set("tx9:" + writer + ":" + k, Long.toString(n));
              }
              tx.exec();
              acknowledged[writer] = n;
            }
          } catch (RuntimeException e) {
            // the connection broke at the kill
          }
        });
        t.start();
        threads.add(t);
      }
      Thread.sleep(700);
      killed.set(true);
      p.kill9();
      for (Thread t : threads) {
        t.join(10_000);
      }
    }
    try (ServerProcess p = launch(data)) {
      int port = p.awaitPort();
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        for (int w = 0; w < writers; w++) {
          assertThat(acknowledged[w]).as("writer %d got transactions acknowledged", w).isPositive();
          List<String> values = new ArrayList<>();
          for (int k = 0; k < keys; k++) {
            values.add(j.get("tx9:" + w + ":" + k));
          }
          assertThat(values).as("writer %d's keys", w).containsOnly(values.get(0));
          assertThat(Long.parseLong(values.get(0))).as("writer %d's number", w)
              .isGreaterThanOrEqualTo(acknowledged[w]);
        }
      }
      p.sigterm();
      assertThat(p.awaitExit()).isZero();
    }
  }

  @Test
  void syncWritesAcknowledgedBeforeKill9_areThereAfterRestart() throws Exception {
    Assumptions.assumeTrue(durableEngineAvailable(dir.resolve("probe")),
        "no durable engine (lsm, bplus) on the class path yet: the memory engine forgets on restart");
    Path data = dir.resolve("data");
    int acknowledged = 0;
    try (ServerProcess p = launch(data, "--durability", "sync")) {
      int port = p.awaitPort();
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        for (int i = 0; i < 300; i++) {
          j.set("k9:" + i, "v" + i);
          acknowledged++;
        }
        assertThat(j.incrBy("k9:counter", 7)).isEqualTo(7);
      }
      p.kill9();
    }
    try (ServerProcess p = launch(data)) {
      int port = p.awaitPort();
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        for (int i = 0; i < acknowledged; i++) {
          assertThat(j.get("k9:" + i)).as("acknowledged write %d", i).isEqualTo("v" + i);
        }
        assertThat(j.get("k9:counter")).isEqualTo("7");
      }
      p.sigterm();
      assertThat(p.awaitExit()).isZero();
    }
  }
}
