package org.kvstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvstore.cluster.slots.HashSlot;
import org.kvstore.cluster.slots.SlotRange;

class ClusterLayoutTest {
  private static Map<String, String> nodes(int n) {
    Map<String, String> nodes = new LinkedHashMap<>();
    for (int i = 1; i <= n; i++) {
      nodes.put("n" + i, "127.0.0.1:" + (9870 + i));
    }
    return nodes;
  }

  @Test
  void slots_threeShards_splitAsRedisCliClusterCreateDoes() {
    ClusterLayout l = new ClusterLayout(nodes(3), 3, List.of("0"), "lsm");
    assertThat(l.slots(0)).isEqualTo(new SlotRange(0, 5460));
    assertThat(l.slots(1)).isEqualTo(new SlotRange(5461, 10922));
    assertThat(l.slots(2)).isEqualTo(new SlotRange(10923, 16383));
  }

  @Test
  void slots_everyShardCount_coverEverySlotOnceAndShardOfAgrees() {
    for (int shards : new int[] {1, 2, 3, 5, 6, 7, 12, 100, 16383, 16384}) {
      ClusterLayout l = new ClusterLayout(nodes(3), shards, List.of("0"), "lsm");
      int next = 0;
      for (int i = 0; i < shards; i++) {
        SlotRange r = l.slots(i);
        assertThat(r.first()).as("%d shards, shard %d", shards, i).isEqualTo(next);
        next = r.last() + 1;
      }
      assertThat(next).isEqualTo(HashSlot.COUNT);
      for (int slot = 0; slot < HashSlot.COUNT; slot++) {
        assertThat(l.slots(l.shardOf(slot)).contains(slot)).as("%d shards, slot %d", shards, slot).isTrue();
      }
    }
  }

  @Test
  void replicas_threeOfFiveNodes_consecutive_preferredLeadersSpreadEvenly() {
    ClusterLayout l = new ClusterLayout(nodes(5), 10, List.of("0"), "lsm");
    assertThat(l.replicationFactor()).isEqualTo(3);
    assertThat(l.replicas(0)).containsExactly("n1", "n2", "n3");
    assertThat(l.replicas(4)).containsExactly("n5", "n1", "n2");
    Map<String, Integer> leaders = new HashMap<>();
    Map<String, Integer> hosted = new HashMap<>();
    for (int i = 0; i < 10; i++) {
      leaders.merge(l.replicas(i).get(0), 1, Integer::sum);
      for (String id : l.replicas(i)) {
        hosted.merge(id, 1, Integer::sum);
      }
    }
    assertThat(leaders).containsOnlyKeys("n1", "n2", "n3", "n4", "n5").allSatisfy((id, n) -> assertThat(n).isEqualTo(2));
    assertThat(hosted).allSatisfy((id, n) -> assertThat(n).isEqualTo(6));
    assertThat(l.shardsOf("n1")).containsExactly(0, 3, 4, 5, 8, 9);
  }

  @Test
  void replicas_smallerClusters_replicateOnEveryNode() {
    assertThat(new ClusterLayout(nodes(1), 2, List.of("0"), "lsm").replicas(1)).containsExactly("n1");
    assertThat(new ClusterLayout(nodes(3), 4, List.of("0"), "lsm").shardsOf("n2")).containsExactly(0, 1, 2, 3);
  }

  @Test
  void invalidLayouts_areRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> new ClusterLayout(nodes(3), 0, List.of("0"), "lsm"))
        .hasMessageContaining("shard count must be 1 to 16384, was 0");
    assertThatThrownBy(() -> new ClusterLayout(Map.of(), 3, List.of("0"), "lsm"))
        .hasMessageContaining("at least one node");
    assertThatThrownBy(() -> new ClusterLayout(nodes(3), 3, List.of(), "lsm"))
        .hasMessageContaining("needs at least one table");
    ClusterLayout l = new ClusterLayout(nodes(3), 3, List.of("0"), "lsm");
    assertThatThrownBy(() -> l.shardsOf("n9")).hasMessageContaining("node n9 is not one of the cluster's [n1, n2, n3]");
    assertThatThrownBy(() -> l.shardOf(16384)).hasMessageContaining("slot 16384 is not within 0-16383");
    assertThatThrownBy(() -> l.slots(3)).hasMessageContaining("shard 3 is not within 0-2");
  }
}
