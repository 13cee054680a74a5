package org.kvstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.InvalidArgumentException;
import org.kvstore.StoreOptions;
import org.kvstore.cluster.shard.ShardSnapshotFile;
import org.kvstore.cluster.shard.ShardStateMachine;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.testkit.Seeds;

/**
 * Three nodes of one shard in this JVM, talking gRPC over loopback: replication, linearizable reads
 * on every replica, leader failover and catch-up, and restarts that replay the Raft log above the
 * tables' persisted state without applying anything twice.
 */
@Timeout(value = 60)
class ClusterNodeTest {
  private static final String T = TestCluster.TABLE;
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  /** Every key of the model reads its value on every running node (and nothing else is there). */
  private static void assertEveryNodeHas(TestCluster c, Map<String, String> model, List<String> keys) {
    for (String id : c.ids()) {
      ClusterNode n = c.node(id);
      if (n == null) {
        continue;
      }
      for (String k : keys) {
        assertThat(s(n.shard(0).get(T, b(k)))).as("node %s key %s", id, k).isEqualTo(model.get(k));
      }
    }
  }

  @Test
  void put_throughLeader_isReadableLinearizablyOnEveryNode_andFollowersRefuseWrites() throws Exception {
    try (TestCluster c = new TestCluster(dir)) {
      c.startAll();
      ClusterNode leader = c.awaitLeader();
      Map<String, String> model = new TreeMap<>();
      for (int i = 0; i < 30; i++) {
        leader.shard(0).put(T, b("k" + i), b("v" + i));
        model.put("k" + i, "v" + i);
      }
      leader.shard(0).remove(T, b("k3"));
      model.remove("k3");
      // A linearizable read on a follower sees the acknowledged writes without waiting for anything.
      assertEveryNodeHas(c, model, List.of("k0", "k3", "k29"));
      for (String id : c.ids()) {
        ClusterNode n = c.node(id);
        if (n != leader) {
          assertThatThrownBy(() -> n.shard(0).put(T, b("x"), b("y")))
              .isInstanceOf(NotLeaderException.class)
              .satisfies(e -> assertThat(((NotLeaderException) e).leaderId()).isEqualTo(leader.nodeId()));
        }
      }
      // The entry's Raft index is the version of what it wrote, the same on every replica.
      long version = leader.shard(0).getEntry(T, b("k29")).version();
      assertThat(version).isPositive();
      for (String id : c.ids()) {
        assertThat(c.node(id).shard(0).getEntry(T, b("k29")).version()).isEqualTo(version);
      }
    }
  }

  @Test
  void largeWrite_isReplicatedAndSentToACatchingUpFollower_andOneAboveTheLimitIsRefusedNamingItsKey()
      throws Exception {
    long seed = Seeds.seed("ClusterNodeTest.largeWrite");
    try (TestCluster c = new TestCluster(dir)) {
      c.maxWriteBytes(8L << 20);
      c.startAll();
      ClusterNode leader = c.awaitLeader();
      String behind = c.ids().stream().filter(id -> !id.equals(leader.nodeId())).findFirst().orElseThrow();
      c.stop(behind);
      // Above Ratis' default appender buffer (4 MiB), below this cluster's largest write.
      byte[] big = new byte[6 << 20];
      new Random(seed).nextBytes(big);
      leader.shard(0).put(T, b("big"), big);
      long index = leader.shard(0).appliedIndex();
      ClusterNode back = c.start(behind);
      c.awaitApplied(index);
      assertThat(back.store().get("s0", T, b("big"))).as("caught-up follower's own table").isEqualTo(big);
      for (String id : c.ids()) {
        assertThat(c.node(id).shard(0).get(T, b("big"))).as("node %s", id).isEqualTo(big);
      }

      byte[] tooBig = new byte[(8 << 20) + 1];
      assertThatThrownBy(() -> leader.shard(0).put(T, b("huge"), tooBig))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("key 'huge'")
          .hasMessageContaining("table " + T + " of shard s0")
          .hasMessageContaining((8L << 20) + " bytes (cluster-max-write-size)");
      assertThat(leader.shard(0).get(T, b("huge"))).isNull();
    }
  }

  @Test
  void leaderStopped_newLeaderTakesWrites_andOldLeaderCatchesUpAfterRestart() throws Exception {
    try (TestCluster c = new TestCluster(dir)) {
      c.startAll();
      ClusterNode first = c.awaitLeader();
      Map<String, String> model = new TreeMap<>();
      for (int i = 0; i < 20; i++) {
        first.shard(0).append(T, b("k" + (i % 5)), b("a" + i + ","));
        model.merge("k" + (i % 5), "a" + i + ",", String::concat);
      }
      String oldId = first.nodeId();
      c.stop(oldId);
      ClusterNode second = c.awaitLeader();
      assertThat(second.nodeId()).isNotEqualTo(oldId);
      for (int i = 20; i < 40; i++) {
        second.shard(0).append(T, b("k" + (i % 5)), b("b" + i + ","));
        model.merge("k" + (i % 5), "b" + i + ",", String::concat);
      }
      long index = second.shard(0).appliedIndex();
      ClusterNode back = c.start(oldId);
      c.awaitApplied(index);
      // Caught up: its own table holds the new leader's writes, read directly, without Raft.
      for (Map.Entry<String, String> e : model.entrySet()) {
        assertThat(s(back.store().get("s0", T, b(e.getKey())))).isEqualTo(e.getValue());
      }
      assertEveryNodeHas(c, model, List.copyOf(model.keySet()));
    }
  }

  @Test
  void restartAll_afterReadModifyWriteLog_equalsModel_andReplaySkipsPersistedEntries() throws Exception {
    long seed = Seeds.seed("ClusterNodeTest.restartAll");
    Random rnd = new Random(seed);
    Map<String, String> model = new TreeMap<>();
    List<String> keys = List.of("a", "b", "c", "d", "e", "f");
    try (TestCluster c = new TestCluster(dir)) {
      c.startAll();
      ClusterNode leader = c.awaitLeader();
      for (int i = 0; i < 150; i++) {
        String k = keys.get(rnd.nextInt(keys.size()));
        int op = rnd.nextInt(10);
        if (op < 7) {
          leader.shard(0).append(T, b(k), b(i + ","));
          model.merge(k, i + ",", String::concat);
        } else if (op < 9) {
          leader.shard(0).put(T, b(k), b("p" + i + ","));
          model.put(k, "p" + i + ",");
        } else {
          leader.shard(0).remove(T, b(k));
          model.remove(k);
        }
      }
      long index = leader.shard(0).appliedIndex();
      c.awaitApplied(index);
      c.stopAll();

      c.startAll();
      ClusterNode again = c.awaitLeader();
      again.shard(0).readBarrier();
      c.awaitApplied(index);
      assertEveryNodeHas(c, model, keys);
      for (String id : c.ids()) {
        // Closing checkpointed every table and took a snapshot (Ratis does at a stop), so the restart
        // either starts above the snapshot or skips the replayed log table by table; the tables refuse
        // an index at or below what they have, so a second apply would throw.
        ShardStateMachine sm = c.node(id).stateMachine(0);
        assertThat(sm.firstIndexApplied() == -1 || sm.firstIndexApplied() > index
            || sm.tableAppliesSkipped() >= index).as("node %s: first index applied %d, skipped %d", id,
            sm.firstIndexApplied(), sm.tableAppliesSkipped()).isTrue();
      }
    }
  }

  @Test
  void snapshot_thenWritesThenCrash_restartReplaysAboveTheSnapshot() throws Exception {
    Map<String, String> model = new TreeMap<>();
    List<String> keys = List.of("a", "b", "c");
    Map<String, FaultInjectingFileSystem> disks = new TreeMap<>();
    try (TestCluster c = new TestCluster(dir)) {
      for (String id : c.ids()) {
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
        disks.put(id, fs);
        c.storeOptions(id, StoreOptions.builder().fileSystem(fs).checkpointInterval(Duration.ZERO).build());
      }
      c.startAll();
      ClusterNode leader = c.awaitLeader();
      for (int i = 0; i < 30; i++) {
        String k = keys.get(i % 3);
        leader.shard(0).append(T, b(k), b(i + ","));
        model.merge(k, i + ",", String::concat);
      }
      long applied = leader.shard(0).appliedIndex();
      c.awaitApplied(applied);
      long snapshot = leader.takeSnapshot(0);
      assertThat(snapshot).isGreaterThanOrEqualTo(applied);
      Path stampDir = dir.resolve(leader.nodeId()).resolve("raft")
          .resolve(ClusterNode.groupIdOf(c.layout().shard(0)).getUuid().toString()).resolve("sm")
          .resolve("snapshots");
      List<Path> snapshots;
      try (java.util.stream.Stream<Path> dirs = java.nio.file.Files.list(stampDir)) {
        snapshots = dirs.toList();
      }
      assertThat(snapshots).hasSize(1);
      ShardSnapshotFile.Stamp stamp = ShardSnapshotFile.read(LocalFileSystem.INSTANCE, snapshots.get(0));
      assertThat(stamp.index()).isEqualTo(snapshot);
      assertThat(stamp.term()).isEqualTo(leader.shard(0).term());
      for (int i = 30; i < 60; i++) {
        String k = keys.get(i % 3);
        leader.shard(0).append(T, b(k), b(i + ","));
        model.merge(k, i + ",", String::concat);
      }
      long last = leader.shard(0).appliedIndex();
      c.awaitApplied(last);
      // Crash every node: their stores persist nothing more, so the leader's tables stay at the
      // snapshot and the others at their creation; only the Raft logs have the later entries.
      String leaderId = leader.nodeId();
      for (String id : c.ids()) {
        disks.get(id).crashAfter(0);
        c.stop(id);
        disks.get(id).heal();
      }
      c.startAll();
      assertThat(c.node(leaderId).store().replicatedTable("s0", T).persistedLsn())
          .isEqualTo(snapshot);
      c.awaitLeader().shard(0).readBarrier();
      c.awaitApplied(last);
      assertEveryNodeHas(c, model, keys);
      // The node with the stamp replayed its log from the entry after the snapshot, no earlier; the
      // others have no stamp and replayed from the log's start.
      assertThat(c.node(leaderId).stateMachine(0).firstIndexApplied()).isEqualTo(snapshot + 1);
      for (String id : c.ids()) {
        if (!id.equals(leaderId)) {
          assertThat(c.node(id).stateMachine(0).firstIndexApplied()).as("node %s", id).isZero();
        }
      }
    }
  }

  @Test
  void append_concurrentOnLeader_keepsEveryAcknowledgedTokenExactlyOnce() throws Exception {
    List<String> keys = List.of("x", "y", "z");
    int threads = 4;
    int perThread = 25;
    try (TestCluster c = new TestCluster(dir)) {
      c.startAll();
      ClusterNode leader = c.awaitLeader();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int thread = t;
          done.add(pool.submit(() -> {
            for (int i = 0; i < perThread; i++) {
              leader.shard(0).append(T, b(keys.get(i % keys.size())), b("t" + thread + "." + i + ","));
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get(40, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      for (String id : c.ids()) {
        List<String> tokens = new ArrayList<>();
        for (String k : keys) {
          for (String token : s(c.node(id).shard(0).get(T, b(k))).split(",")) {
            assertThat(token).startsWith("t");
            tokens.add(k + ":" + token);
          }
        }
        assertThat(tokens).as("node %s: every acknowledged token once", id)
            .hasSize(threads * perThread).doesNotHaveDuplicates();
      }
    }
  }
}
