package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.testkit.history.LinearizabilityAssertions;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.TestScale;
import org.kvstore.testkit.history.Command;
import org.kvstore.testkit.history.HistoryStats;
import org.kvstore.testkit.history.Operation;
import org.kvstore.testkit.history.RegisterWorkload;

/**
 * Linearizability across kill -9 (RELIABILITY T11, crash variant): the server runs as a child JVM
 * with {@code sync} durability while 8 Jedis clients run the register workload; mid-run it is
 * killed with SIGKILL and restarted on the same data directory, and the clients reconnect and go
 * on. Operations in flight at the kill are indeterminate (they may or may not have happened); the
 * whole history, before and after the restart, must be linearizable. That includes the observed-
 * write rule of {@code sync}: a value some client read before the kill cannot vanish after it.
 * One kill in about 15 s by default; five kills, with longer phases, under {@code -Pcrash}.
 */
class CrashLinearizabilityTest {
  @TempDir Path dir;

  private static ServerProcess launch(Path data) throws Exception {
    return ServerProcess.launch("--data-dir", data.toString(), "--resp-port", "0", "--http-port", "-1",
        "--thrift-port", "-1", "--durability", "sync");
  }

  @Test
  void kill9MidRun_historyAcrossTheRestart_isLinearizable() throws Exception {
    long seed = Seeds.seed("CrashLinearizabilityTest");
    boolean longRun = TestScale.current() == TestScale.CRASH;
    int kills = longRun ? 5 : 1;
    Duration phase = Duration.ofSeconds(longRun ? 12 : 5);
    Duration restartAllowance = Duration.ofSeconds(5);
    Duration total = phase.multipliedBy(kills + 1).plus(restartAllowance.multipliedBy(kills));
    Path data = dir.resolve("data");
    AtomicInteger port = new AtomicInteger();
    List<long[]> downtimes = new ArrayList<>(); // {kill, restarted} in nanoTime
    List<Operation> history;
    ServerProcess server = launch(data);
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try {
      port.set(server.awaitPort());
      RegisterWorkload workload = new RegisterWorkload(8, 16, 200, total, Long.MAX_VALUE, "crash:", seed);
      Future<List<Operation>> running = runner.submit(() -> workload.run(() -> new JedisRegisterClient(port.get())));
      for (int k = 0; k < kills; k++) {
        Thread.sleep(phase.toMillis());
        long killed = System.nanoTime();
        server.kill9();
        server = launch(data);
        port.set(server.awaitPort());
        downtimes.add(new long[] {killed, System.nanoTime()});
      }
      history = running.get(total.toSeconds() + 60, TimeUnit.SECONDS);
      server.sigterm();
      assertThat(server.awaitExit()).as("stderr: %s", server.stderr()).isZero();
    } finally {
      server.close();
      runner.shutdownNow();
    }

    HistoryStats stats = HistoryStats.of(history);
    System.out.println("CrashLinearizabilityTest: " + stats);
    assertThat(stats.ok()).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(1000);
    assertThat(stats.keysWithAtLeast(20)).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(16);
    assertThat(stats.readsWithValue()).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(100);
    LinearizabilityAssertions.assertLinearizable(history, "CrashLinearizabilityTest.seed" + seed);
    for (long[] down : downtimes) {
      assertCrashIsCovered(history, down[0], down[1], seed);
    }
  }

  /**
   * The check spans the crash: work completed before the kill and after the restart, and some key
   * written before the kill was read with a value after it (so a lost write would show).
   */
  private static void assertCrashIsCovered(List<Operation> history, long killed, long restarted, long seed) {
    Set<String> writtenBefore = new HashSet<>();
    int okBefore = 0;
    int okAfter = 0;
    for (Operation op : history) {
      if (op.status() != Operation.Status.OK) {
        continue;
      }
      if (op.completeNanos() < killed) {
        okBefore++;
        if (op.command().mayWrite()) {
          writtenBefore.add(op.key());
        }
      } else if (op.invokeNanos() > restarted) {
        okAfter++;
      }
    }
    int readsAcross = 0;
    for (Operation op : history) {
      if (op.status() == Operation.Status.OK && op.invokeNanos() > restarted && op.command() == Command.GET
          && op.result() != null && writtenBefore.contains(op.key())) {
        readsAcross++;
      }
    }
    assertThat(okBefore).as("seed %d: operations completed before the kill", seed).isGreaterThanOrEqualTo(200);
    assertThat(okAfter).as("seed %d: operations after the restart", seed).isGreaterThanOrEqualTo(200);
    assertThat(readsAcross).as("seed %d: reads after the restart of keys written before the kill", seed)
        .isGreaterThanOrEqualTo(5);
  }
}
