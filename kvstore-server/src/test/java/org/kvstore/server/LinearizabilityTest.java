package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvstore.testkit.history.LinearizabilityAssertions;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.TestScale;
import org.kvstore.testkit.history.Command;
import org.kvstore.testkit.history.HistoryStats;
import org.kvstore.testkit.history.Operation;
import org.kvstore.testkit.history.RegisterWorkload;

/**
 * Single-key operations of concurrent clients are linearizable (RELIABILITY T11): 8 Jedis clients
 * run GET, SET, SET NX, SET XX, DEL, INCR and APPEND on 16 key slots (a slot moves to a fresh key
 * every 200 operations) against an in-process server for 3 s (60 s under {@code -Psoak}), and
 * the recorded history is checked key by key with the test kit's linearizability checker.
 */
class LinearizabilityTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"lsm", "bplus"})
  void concurrentClients_singleKeyOperations_areLinearizable(String engine) throws Exception {
    long seed = Seeds.seed("LinearizabilityTest." + engine);
    Duration duration = Duration.ofSeconds(TestScale.current() == TestScale.SOAK ? 60 : 3);
    List<Operation> history;
    try (KVStoreServer server = KVStoreServer.start(TestServers.config(dir).set("default-engine", engine).build())) {
      int port = server.respPort();
      RegisterWorkload workload = new RegisterWorkload(8, 16, 200, duration, Long.MAX_VALUE, "lin:", seed);
      history = workload.run(() -> new JedisRegisterClient(port));
    }
    HistoryStats stats = HistoryStats.of(history);
    System.out.println("LinearizabilityTest." + engine + ": " + stats);
    // enough happened for the check to mean something
    assertThat(stats.ok()).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(1000);
    assertThat(stats.keysWithAtLeast(20)).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(16);
    assertThat(stats.readsWithValue()).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(100);
    for (Command c : Command.values()) {
      assertThat(stats.ok(c)).as("seed %d: completed %s: %s", seed, c, stats).isGreaterThanOrEqualTo(10);
    }
    LinearizabilityAssertions.assertLinearizable(history, "LinearizabilityTest." + engine + ".seed" + seed);
  }
}
