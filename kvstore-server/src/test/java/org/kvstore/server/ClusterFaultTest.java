package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.cluster.slots.HashSlot;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.TestScale;
import org.kvstore.testkit.history.CheckResult;
import org.kvstore.testkit.history.Command;
import org.kvstore.testkit.history.HistoryStats;
import org.kvstore.testkit.history.LinearizabilityAssertions;
import org.kvstore.testkit.history.LinearizabilityChecker;
import org.kvstore.testkit.history.Operation;
import org.kvstore.testkit.history.RegisterWorkload;

/**
 * Faults under load on a three-node cluster of server processes (SCALEOUT.md §7, RELIABILITY T11):
 * eight clients run the register workload (GET, SET, SET NX/XX, DEL, INCR, APPEND of unique
 * tokens), half of them reading from replicas after {@code READONLY}, while the test kills the node
 * serving some slots with SIGKILL and restarts it, pauses a serving node with SIGSTOP past the
 * election timeout, cuts a serving node's Raft links to the other two for 3 s (a partition through
 * {@link RaftLinkProxy}; its clients still reach it) and heals them, and kills all three nodes at
 * once and restarts them. Pass: the whole history,
 * ending with a read of every key, is linearizable (so no acknowledged write was lost), and each
 * fault's unavailability is reported and bounded.
 *
 * <p>The negative controls run the same workload against nodes that answer replica reads from
 * their own applied state ({@code cluster-stale-replica-reads}), and against nodes that answer
 * writes before their commit ({@code cluster-ack-before-commit}) while one is killed: the checker
 * must find each not linearizable, so neither a stale read nor a lost write goes unnoticed.
 *
 * <p>One round of faults in about a minute by default; four rounds, with longer phases, under
 * {@code -Pcrash}.
 */
@Timeout(900)
class ClusterFaultTest {
  @TempDir Path dir;

  /** One fault: what was done and when (nanoTime), and the node that served the probed slot. */
  private record Fault(String what, long start, long end, int probedShardSlot) {}

  @Test
  void leaderKilledPausedPartitionedAndAllKilled_historyIsLinearizable() throws Exception {
    long seed = Seeds.seed("ClusterFaultTest");
    boolean longRun = TestScale.current() == TestScale.CRASH;
    int rounds = longRun ? 4 : 1;
    Duration phase = Duration.ofSeconds(longRun ? 12 : 5);
    Duration total = phase.multipliedBy(4L * rounds + 2).plus(Duration.ofSeconds(45L * rounds + 20));
    Random rnd = new Random(seed);
    List<Fault> faults = new ArrayList<>();
    List<Operation> history;
    long partitionRefusals;
    long unidentifiedLinks;
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try (ClusterProcesses c = new ClusterProcesses(dir, true)) {
      c.startAll();
      List<Integer> ports = List.copyOf(c.ports.values());
      AtomicInteger clients = new AtomicInteger();
      RegisterWorkload workload = new RegisterWorkload(8, 24, 150, total, Long.MAX_VALUE, "fault:", seed);
      Future<List<Operation>> running = runner.submit(() -> workload.run(
          () -> new ClusterRegisterClient(ports, clients.getAndIncrement() % 2 == 1)));
      for (int round = 0; round < rounds; round++) {
        Thread.sleep(phase.toMillis());
        String probe = "probe:" + rnd.nextInt(1000);
        String victim = c.nodeServing(probe);
        long start = System.nanoTime();
        c.kill9(victim);
        Thread.sleep(2000);
        c.start(victim);
        faults.add(new Fault("SIGKILL of " + victim + ", restarted after 2 s", start, System.nanoTime(), slot(probe)));

        Thread.sleep(phase.toMillis());
        probe = "probe:" + rnd.nextInt(1000);
        String paused = c.nodeServing(probe);
        start = System.nanoTime();
        c.stop(paused);
        Thread.sleep(3000); // the election timeout is 0.5-1 s
        c.resume(paused);
        faults.add(new Fault("SIGSTOP of " + paused + " for 3 s", start, System.nanoTime(), slot(probe)));

        Thread.sleep(phase.toMillis());
        probe = "probe:" + rnd.nextInt(1000);
        String isolated = c.nodeServing(probe);
        start = System.nanoTime();
        c.proxy().isolate(isolated); // its clients still reach it; its Raft links are cut both ways
        Thread.sleep(3000);
        // The cut lasts at least 3 s and until the majority side reports a leader of its own (an
        // election may take longer on a loaded machine), at most 20 s.
        List<String> majority = c.ids().stream().filter(id -> !id.equals(isolated)).toList();
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String servingInMajority = c.nodeServing(probe, majority);
        while (servingInMajority.equals(isolated) && System.nanoTime() < giveUp) {
          Thread.sleep(200);
          servingInMajority = c.nodeServing(probe, majority);
        }
        c.proxy().heal();
        long cutMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(servingInMajority).as("seed %d: the majority side elected a leader of its own within %d ms",
            seed, cutMillis).isNotEqualTo(isolated);
        faults.add(new Fault("partition: " + isolated + " cut off from the other two for " + cutMillis + " ms",
            start, System.nanoTime(), slot(probe)));

        Thread.sleep(phase.toMillis());
        start = System.nanoTime();
        for (String id : c.ids()) {
          c.kill9(id);
        }
        for (String id : c.ids()) {
          c.start(id);
        }
        faults.add(new Fault("SIGKILL of all three nodes, restarted", start, System.nanoTime(), slot("probe:0")));
      }
      c.awaitClusterOk();
      history = new ArrayList<>(running.get(total.toSeconds() + 120, TimeUnit.SECONDS));
      history.addAll(finalReads(history, ports));
      partitionRefusals = c.proxy().refused();
      unidentifiedLinks = c.proxy().unidentified();
      System.out.println("ClusterFaultTest: the proxy refused " + partitionRefusals + " Raft connections during"
          + " partitions; " + unidentifiedLinks + " connections of an unknown node");
    } finally {
      runner.shutdownNow();
    }

    HistoryStats stats = HistoryStats.of(history);
    System.out.println("ClusterFaultTest: " + stats);
    assertThat(stats.ok()).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(500);
    assertThat(stats.ok(Command.APPEND)).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(30);
    long origin = history.stream().mapToLong(Operation::invokeNanos).min().orElse(0);
    for (Fault f : faults) {
      long unavailable = unavailableMillis(history, f);
      System.out.printf("ClusterFaultTest: %s (%d-%d ms into the run): the probed shard's longest time without"
          + " a completed operation: %d ms%n", f.what(), TimeUnit.NANOSECONDS.toMillis(f.start() - origin),
          TimeUnit.NANOSECONDS.toMillis(f.end() - origin), unavailable);
      assertThat(unavailable).as("seed %d: %s", seed, f.what()).isLessThan(30_000);
    }
    LinearizabilityAssertions.assertLinearizable(history, "ClusterFaultTest.seed" + seed);
    assertThat(partitionRefusals).as("the partition refused Raft connections").isPositive();
    assertThat(unidentifiedLinks).as("Raft connections whose node the proxy could not tell").isZero();
  }

  /**
   * The negative control of stale reads: with {@code cluster-stale-replica-reads}, clients that read
   * from replicas see values older than writes already acknowledged, and the checker says so.
   */
  @Test
  void staleReplicaReads_checkerFindsTheStaleRead() throws Exception {
    assertCheckerCatches("stale", "--cluster-stale-replica-reads", true, c -> {});
  }

  /**
   * The negative control of lost writes: with {@code cluster-ack-before-commit}, leaders answer
   * writes before a majority has them, and the node serving a slot is killed mid-run: writes it
   * answered and never replicated are gone, and reads after an answered write may miss it; the
   * checker must say so.
   */
  @Test
  void acksBeforeCommit_checkerFindsTheLostWrites() throws Exception {
    assertCheckerCatches("lost", "--cluster-ack-before-commit", false, c -> {
      String victim = c.nodeServing("lost:0.0");
      c.kill9(victim);
      Thread.sleep(2000);
      c.start(victim);
    });
  }

  /** What a negative control does to the cluster 5 s into its run. */
  @FunctionalInterface
  private interface MidRun {
    void apply(ClusterProcesses c) throws Exception;
  }

  /**
   * Runs the workload for 15 s on nodes with the unsafe {@code setting} turned on (half the clients
   * reading from replicas when {@code replicaReaders}), does {@code midRun} 5 s in, reads every key
   * at the end, and asserts the checker finds the history not linearizable.
   */
  private void assertCheckerCatches(String name, String setting, boolean replicaReaders, MidRun midRun)
      throws Exception {
    long seed = Seeds.seed("ClusterFaultTest." + name);
    List<Operation> history;
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try (ClusterProcesses c = new ClusterProcesses(dir, setting, "true")) {
      c.startAll();
      List<Integer> ports = List.copyOf(c.ports.values());
      AtomicInteger clients = new AtomicInteger();
      RegisterWorkload workload = new RegisterWorkload(8, 8, 150, Duration.ofSeconds(15), 20_000, name + ":", seed);
      Future<List<Operation>> running = runner.submit(() -> workload.run(
          () -> new ClusterRegisterClient(ports, replicaReaders && clients.getAndIncrement() % 2 == 1)));
      Thread.sleep(5000);
      midRun.apply(c);
      history = new ArrayList<>(running.get(120, TimeUnit.SECONDS));
      c.awaitClusterOk();
      history.addAll(finalReads(history, ports));
    } finally {
      runner.shutdownNow();
    }
    CheckResult result = LinearizabilityChecker.forRegisters().check(history);
    System.out.println("ClusterFaultTest (" + setting + "): " + HistoryStats.of(history) + "; "
        + result.report().lines().findFirst().orElse("") + "; keys not linearizable: "
        + result.keys().stream().filter(k -> k.verdict() == CheckResult.Verdict.NOT_LINEARIZABLE).count());
    assertThat(result.verdict()).as("seed %d: %s went unnoticed", seed, setting)
        .isEqualTo(CheckResult.Verdict.NOT_LINEARIZABLE);
  }

  private static int slot(String key) {
    return HashSlot.of(key.getBytes(StandardCharsets.UTF_8));
  }

  /** A GET of every key of the history after everything else, so that a lost last write shows. */
  private static List<Operation> finalReads(List<Operation> history, List<Integer> ports) {
    Set<String> keys = new LinkedHashSet<>();
    int maxId = 0;
    for (Operation op : history) {
      keys.add(op.key());
      maxId = Math.max(maxId, op.id());
    }
    List<Operation> reads = new ArrayList<>();
    try (ClusterRegisterClient client = new ClusterRegisterClient(ports, false)) {
      for (String key : keys) {
        long invoked = System.nanoTime();
        Object value = client.execute(Command.GET, key, null);
        reads.add(Operation.ok(++maxId, 1000, key, Command.GET, null, invoked, System.nanoTime(), value));
      }
    }
    return reads;
  }

  /**
   * The longest time the shard of {@code f}'s probed slot completed no operation, from the fault's
   * start until 10 s after its end: its unavailability (the gap that ends with the first
   * completion after the fault counts in full).
   */
  private static long unavailableMillis(List<Operation> history, Fault f) {
    int shard = shardOf(f.probedShardSlot());
    long windowEnd = f.end() + TimeUnit.SECONDS.toNanos(10);
    List<Long> completions = new ArrayList<>();
    for (Operation op : history) {
      if (op.status() == Operation.Status.OK && shardOf(slot(op.key())) == shard
          && op.completeNanos() >= f.start() && op.completeNanos() <= windowEnd) {
        completions.add(op.completeNanos());
      }
    }
    completions.sort(null);
    long previous = f.start();
    long longest = 0;
    for (long c : completions) {
      longest = Math.max(longest, c - previous);
      previous = c;
    }
    longest = Math.max(longest, windowEnd - previous);
    return TimeUnit.NANOSECONDS.toMillis(longest);
  }

  /** The shard of a slot in a three-shard cluster (redis-cli's split). */
  private static int shardOf(int slot) {
    return slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2;
  }
}
