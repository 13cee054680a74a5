package org.kvstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Entry;
import org.kvstore.spi.Mutation;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.history.Command;
import org.kvstore.testkit.history.HistoryStats;
import org.kvstore.testkit.history.LinearizabilityAssertions;
import org.kvstore.testkit.history.Operation;
import org.kvstore.testkit.history.RegisterClient;
import org.kvstore.testkit.history.RegisterWorkload;

/**
 * Concurrent clients run single-key registers (GET, SET, SET NX/XX, DEL, INCR, APPEND) against
 * three shards on three nodes in this JVM while a fault thread stops the leader of a shard and
 * restarts it, again and again; the history must be linearizable per key (the reliability
 * issue's checker). Every operation goes to the node that leads the key's shard at that moment;
 * one that throws (no leader, the node closed under it, a timeout) is recorded as indeterminate.
 */
class ClusterLinearizabilityTest {
  private static final int SHARDS = 3;
  private static final String T = TestCluster.TABLE;

  @TempDir
  Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Runs each command on the node leading the key's shard, waiting up to 5 s for one. */
  private static final class ShardRegisterClient implements RegisterClient {
    private final TestCluster cluster;

    ShardRegisterClient(TestCluster cluster) {
      this.cluster = cluster;
    }

    @Override
    public Object execute(Command command, String key, String argument) throws Exception {
      byte[] k = b(key);
      int shardIndex = cluster.layout().shardOfKey(k);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      ClusterNode leader;
      while ((leader = cluster.runningLeader(shardIndex)) == null) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no leader of shard " + shardIndex + " for 5 s");
        }
        Thread.sleep(20);
      }
      Shard shard = leader.shard(shardIndex);
      return switch (command) {
        case GET -> {
          byte[] v = shard.get(T, k);
          yield v == null ? null : new String(v, StandardCharsets.UTF_8);
        }
        case SET -> {
          shard.put(T, k, b(argument));
          yield true;
        }
        case SET_NX, SET_XX -> {
          boolean[] set = new boolean[1];
          shard.update(T, List.of(k), current -> {
            set[0] = (current[0] == null) == (command == Command.SET_NX);
            return set[0] ? List.of(Mutation.put(k, b(argument))) : List.of();
          });
          yield set[0];
        }
        case DEL -> {
          long[] removed = new long[1];
          shard.update(T, List.of(k), current -> {
            removed[0] = current[0] == null ? 0 : 1;
            return current[0] == null ? List.of() : List.of(Mutation.remove(k));
          });
          yield removed[0];
        }
        case INCR -> {
          Object[] result = new Object[1];
          shard.update(T, List.of(k), current -> {
            long value;
            try {
              value = current[0] == null ? 0 : Long.parseLong(new String(current[0].value(), StandardCharsets.UTF_8));
            } catch (NumberFormatException e) {
              result[0] = Operation.ErrorReply.NOT_AN_INTEGER;
              return List.of();
            }
            result[0] = value + 1;
            long expiresAt = current[0] == null ? Entry.NO_EXPIRY : current[0].expiresAt();
            return List.of(Mutation.put(k, b(Long.toString(value + 1)), expiresAt));
          });
          yield result[0];
        }
        case APPEND -> (long) shard.append(T, k, b(argument));
      };
    }

    @Override
    public void close() {}
  }

  @Test
  void leaderStoppedAndRestartedUnderLoad_historyIsLinearizable() throws Exception {
    long seed = Seeds.seed("ClusterLinearizabilityTest");
    Random random = new Random(seed);
    int faults = 3;
    Duration total = Duration.ofSeconds(30); // the faults take at most about 22 s of it
    List<long[]> downtimes = new ArrayList<>();
    List<Operation> history;
    try (TestCluster c = new TestCluster(dir, SHARDS)) {
      c.startAll();
      for (int i = 0; i < SHARDS; i++) {
        c.awaitLeader(i);
      }
      RegisterWorkload workload = new RegisterWorkload(6, 12, 150, total, Long.MAX_VALUE, "c:", seed);
      ExecutorService runner = Executors.newSingleThreadExecutor();
      try {
        Future<List<Operation>> running = runner.submit(() -> workload.run(() -> new ShardRegisterClient(c)));
        for (int f = 0; f < faults; f++) {
          Thread.sleep(3000 + random.nextInt(1500));
          int shard = random.nextInt(SHARDS);
          String victim = c.awaitLeader(shard).nodeId();
          long stopped = System.nanoTime();
          c.stop(victim);
          Thread.sleep(1500);
          c.start(victim);
          downtimes.add(new long[] {stopped, System.nanoTime()});
        }
        history = running.get(total.toSeconds() + 60, TimeUnit.SECONDS);
      } finally {
        runner.shutdownNow();
      }
    }
    HistoryStats stats = HistoryStats.of(history);
    System.out.println("ClusterLinearizabilityTest: seed " + seed + ": " + stats);
    assertThat(stats.ok()).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(500);
    assertThat(stats.keysWithAtLeast(20)).as("seed %d: %s", seed, stats).isGreaterThanOrEqualTo(12);
    for (long[] down : downtimes) {
      long okAfter = history.stream().filter(op -> op.status() == Operation.Status.OK
          && op.invokeNanos() > down[1]).count();
      assertThat(okAfter).as("seed %d: operations after a restart", seed).isGreaterThanOrEqualTo(100);
    }
    LinearizabilityAssertions.assertLinearizable(history, "ClusterLinearizabilityTest.seed" + seed);
  }
}
