package org.kvstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three nodes hosting six shards each in one JVM: routing by hash slot, leaders spread, restart. */
class MultiShardClusterTest {
  private static final int SHARDS = 6;
  private static final String T = TestCluster.TABLE;

  @TempDir
  Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ShardStatus awaitFollowersCaughtUp(ClusterNode leader, int shard) throws InterruptedException {
    long deadline = System.nanoTime() + TestCluster.WAIT.toNanos();
    ShardStatus s = leader.status().get(shard);
    while (s.followerLag().values().stream().anyMatch(lag -> lag > 0) || s.followerLag().size() < 2) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("followers of shard " + shard + " still behind: " + s);
      }
      Thread.sleep(50);
      s = leader.status().get(shard);
    }
    return s;
  }

  @Test
  void sixShards_leadersSpreadTwoPerNode_keysLandInTheirSlotsShard_andSurviveARestart() throws Exception {
    try (TestCluster c = new TestCluster(dir, SHARDS)) {
      c.startAll();
      ClusterLayout layout = c.layout();
      for (String id : c.ids()) {
        assertThat(c.node(id).shardIndexes()).containsExactly(0, 1, 2, 3, 4, 5);
      }
      c.awaitPreferredLeaders();
      Map<String, Integer> led = new LinkedHashMap<>();
      for (String id : c.ids()) {
        for (int i = 0; i < SHARDS; i++) {
          if (c.node(id).shard(i).isLeader()) {
            led.merge(id, 1, Integer::sum);
          }
        }
      }
      assertThat(led).containsOnlyKeys("n1", "n2", "n3").allSatisfy((id, n) -> assertThat(n).isEqualTo(2));

      Map<String, String> model = new LinkedHashMap<>();
      for (int k = 0; k < 120; k++) {
        String key = "key:" + k;
        int shard = layout.shardOfKey(b(key));
        c.node(layout.replicas(shard).get(0)).shardOfKey(b(key)).put(T, b(key), b("v" + k));
        model.put(key, "v" + k);
      }
      // a key is in its slot's shard (database s<i>) on every replica, and in no other shard
      for (String id : c.ids()) {
        ClusterNode n = c.node(id);
        for (Map.Entry<String, String> e : model.entrySet()) {
          int shard = layout.shardOfKey(b(e.getKey()));
          assertThat(new String(n.shard(shard).get(T, b(e.getKey())), StandardCharsets.UTF_8))
              .as("node %s key %s", id, e.getKey()).isEqualTo(e.getValue());
          for (int other = 0; other < SHARDS; other++) {
            if (other != shard) {
              assertThat(n.store().get("s" + other, T, b(e.getKey()))).as("node %s shard %d", id, other).isNull();
            }
          }
        }
      }
      // every replica reports its shard's role, term and indexes; the leader its followers' lag,
      // which drops to 0 once they have the writes
      for (int i = 0; i < SHARDS; i++) {
        String preferred = layout.replicas(i).get(0);
        ShardStatus leading = awaitFollowersCaughtUp(c.node(preferred), i);
        assertThat(leading.role()).isEqualTo("leader");
        assertThat(leading.leaderId()).isEqualTo(preferred);
        assertThat(leading.followerLag()).containsOnlyKeys(layout.replicas(i).subList(1, 3));
        assertThat(leading.term()).isPositive();
        assertThat(leading.appliedIndex()).isLessThanOrEqualTo(leading.commitIndex()).isPositive();
        for (String id : layout.replicas(i).subList(1, 3)) {
          ShardStatus following = c.node(id).status().get(i);
          assertThat(following.shard()).isEqualTo("s" + i);
          assertThat(following.role()).isEqualTo("follower");
          assertThat(following.leaderId()).isEqualTo(preferred);
          assertThat(following.term()).isEqualTo(leading.term());
          assertThat(following.followerLag()).isEmpty();
          assertThat(following.appliedIndex()).isLessThanOrEqualTo(following.commitIndex());
        }
      }
      // a non-leader of a shard refuses its writes, naming the leader
      String follower = layout.replicas(2).get(1);
      assertThatThrownBy(() -> c.node(follower).shard(2).put(T, b("x"), b("y")))
          .isInstanceOf(NotLeaderException.class).hasMessageContaining(layout.replicas(2).get(0));

      c.stopAll();
      c.startAll();
      for (Map.Entry<String, String> e : model.entrySet()) {
        int shard = layout.shardOfKey(b(e.getKey()));
        c.awaitLeader(shard);
        assertThat(new String(c.node("n3").shard(shard).get(T, b(e.getKey())), StandardCharsets.UTF_8))
            .isEqualTo(e.getValue());
      }
    }
  }

  @Test
  void restart_withAnotherShardCount_isRefusedNamingTheGroupsAndTheLayout() throws Exception {
    try (TestCluster c = new TestCluster(dir, SHARDS)) {
      c.start("n1");
      c.stop("n1");
    }
    try (TestCluster other = new TestCluster(dir, 4)) {
      assertThatThrownBy(() -> other.start("n1"))
          .isInstanceOf(ClusterException.class)
          .hasMessageContaining("holds the Raft groups")
          .hasMessageContaining("4 shards over [n1, n2, n3]")
          .hasMessageContaining("fixed when it is created");
    }
  }
}
