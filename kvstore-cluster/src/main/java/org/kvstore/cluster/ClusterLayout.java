package org.kvstore.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.cluster.slots.HashSlot;
import org.kvstore.cluster.slots.SlotRange;

/**
 * The shape of a cluster, fixed when it is created and the same on every node: its nodes (in a
 * fixed order), the number of shards the 16384 hash slots are split over, and the tables and engine
 * of every shard.
 *
 * <ul>
 *   <li>Shard {@code i} is named {@code s<i>} and owns a run of about 16384/n slots, in order,
 *       split as {@code redis-cli --cluster create} splits them over n masters (shard {@code i}
 *       ends at slot {@code round((i+1) * 16384 / n - 1)}): 0-5460, 5461-10922 and 10923-16383
 *       for three.
 *   <li>Its replicas are {@link #replicationFactor} consecutive nodes from node {@code i mod
 *       nodes}, wrapping: three of three nodes, or three of more. The first is the shard's
 *       preferred leader (it gets the higher Raft priority, and Ratis hands leadership back to it
 *       once it has caught up), so leaders spread evenly over the nodes.
 * </ul>
 *
 * @param nodes node id to Raft address {@code host:port}, in the cluster's order
 * @param shardCount how many shards (Raft groups) the slots are split over, 1 to 16384
 * @param tables every shard's table names
 * @param engine the durable engine of the shard tables ({@code lsm} or {@code bplus})
 *
 * <p>Thread safety: immutable.
 */
public record ClusterLayout(Map<String, String> nodes, int shardCount, List<String> tables, String engine) {
  /** Replicas per shard when the cluster has at least that many nodes. */
  public static final int REPLICAS = 3;

  public ClusterLayout {
    if (nodes == null || nodes.isEmpty()) {
      throw new IllegalArgumentException("a cluster needs at least one node");
    }
    nodes = Collections.unmodifiableMap(new LinkedHashMap<>(nodes));
    if (shardCount < 1 || shardCount > HashSlot.COUNT) {
      throw new IllegalArgumentException("shard count must be 1 to " + HashSlot.COUNT + ", was " + shardCount);
    }
    // ShardSpec checks the tables and the engine, once for all shards
    new ShardSpec(shardName(0), tables, engine);
    tables = List.copyOf(tables);
  }

  static String shardName(int index) {
    return "s" + index;
  }

  /** How many replicas each shard has: {@value #REPLICAS}, or every node of a smaller cluster. */
  public int replicationFactor() {
    return Math.min(REPLICAS, nodes.size());
  }

  public ShardSpec shard(int index) {
    checkShard(index);
    return new ShardSpec(shardName(index), tables, engine);
  }

  /** The slots shard {@code index} owns. */
  public SlotRange slots(int index) {
    checkShard(index);
    return new SlotRange(firstSlot(index), firstSlot(index + 1) - 1);
  }

  /** As redis-cli: shard i-1 ends at round(i * 16384 / n - 1), half away from zero. */
  private int firstSlot(int index) {
    if (index == 0) {
      return 0;
    }
    if (index == shardCount) {
      return HashSlot.COUNT;
    }
    return (int) Math.round((double) index * HashSlot.COUNT / shardCount - 1) + 1;
  }

  /** The shard that owns {@code slot}. */
  public int shardOf(int slot) {
    if (slot < 0 || slot >= HashSlot.COUNT) {
      throw new IllegalArgumentException("slot " + slot + " is not within 0-" + (HashSlot.COUNT - 1));
    }
    // the largest i with firstSlot(i) <= slot
    int i = (int) (((long) slot * shardCount + shardCount - 1) / HashSlot.COUNT);
    while (i > 0 && firstSlot(i) > slot) {
      i--;
    }
    while (i + 1 < shardCount && firstSlot(i + 1) <= slot) {
      i++;
    }
    return i;
  }

  /** The shard that owns {@code key}'s slot. */
  public int shardOfKey(byte[] key) {
    return shardOf(HashSlot.of(key));
  }

  /** The node ids holding shard {@code index}'s replicas, its preferred leader first. */
  public List<String> replicas(int index) {
    checkShard(index);
    List<String> ids = List.copyOf(nodes.keySet());
    List<String> replicas = new ArrayList<>(replicationFactor());
    for (int k = 0; k < replicationFactor(); k++) {
      replicas.add(ids.get((index + k) % ids.size()));
    }
    return replicas;
  }

  /** The shards of which {@code nodeId} holds a replica, in order. */
  public List<Integer> shardsOf(String nodeId) {
    if (!nodes.containsKey(nodeId)) {
      throw new IllegalArgumentException("node " + nodeId + " is not one of the cluster's " + nodes.keySet());
    }
    List<Integer> shards = new ArrayList<>();
    for (int i = 0; i < shardCount; i++) {
      if (replicas(i).contains(nodeId)) {
        shards.add(i);
      }
    }
    return shards;
  }

  private void checkShard(int index) {
    if (index < 0 || index >= shardCount) {
      throw new IllegalArgumentException("shard " + index + " is not within 0-" + (shardCount - 1));
    }
  }
}
