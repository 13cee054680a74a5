package org.kvstore.server.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.cluster.ClusterLayout;
import org.kvstore.cluster.ClusterNode;
import org.kvstore.cluster.ShardStatus;
import org.kvstore.cluster.ShardedTable;
import org.kvstore.cluster.slots.SlotRange;

/**
 * What the server's front ends need of the cluster this node belongs to: the keyspace's table over
 * every shard ({@link ShardedTable}), each node's client address for redirects, and the slot map as
 * Redis Cluster clients read it (SCALEOUT.md §6.3, leader-only topology).
 *
 * <ul>
 *   <li>A shard's <b>serving node</b> is its leader as this node's replica knows it; while none is
 *       known, its preferred leader (the first of its replicas). Every slot is always covered.
 *   <li>A node is listed as a <b>master</b> owning the slots of the shards it serves; nodes that
 *       serve none are listed as masters without slots. Followers are not listed as replicas:
 *       Redis clients fix a node's role when they first see it, and a node leads some shards while
 *       following others.
 *   <li>A node's <b>Redis id</b> is 40 hex digits derived from its name (SHA-1), the same on
 *       every node; {@code CLUSTER NODES} and {@code INFO cluster} also give the name.
 * </ul>
 *
 * <p>Thread safety: thread-safe; every view is computed from the Raft state when asked.
 */
public final class ClusterFrontEnd {
  private final ClusterNode node;
  private final ClusterMembers members;
  private final ShardedTable table;
  private final Map<String, String> redisIds = new LinkedHashMap<>();

  /** The slots of one shard and the node that serves them. */
  public record SlotOwner(SlotRange slots, String nodeId, String shard) {}

  public ClusterFrontEnd(ClusterNode node, ClusterMembers members, ShardedTable table) {
    this.node = node;
    this.members = members;
    this.table = table;
    for (ClusterMembers.Member m : members.members()) {
      redisIds.put(m.id(), redisIdOf(m.id()));
    }
  }

  static String redisIdOf(String nodeId) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1")
          .digest(("kvstore-node:" + nodeId).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-1", e);
    }
  }

  public ClusterNode node() {
    return node;
  }

  public ClusterMembers members() {
    return members;
  }

  /** The keyspace's table (Redis' database 0) over every shard. */
  public ShardedTable table() {
    return table;
  }

  /** This node's name. */
  public String myId() {
    return node.nodeId();
  }

  /** {@code nodeId}'s 40-hex-digit id as Redis clients see it. */
  public String redisId(String nodeId) {
    String id = redisIds.get(nodeId);
    return id != null ? id : redisIdOf(nodeId);
  }

  /** {@code nodeId}'s member entry (its client and Raft addresses). */
  public ClusterMembers.Member member(String nodeId) {
    ClusterMembers.Member m = members.member(nodeId);
    if (m == null) {
      throw new IllegalArgumentException("node " + nodeId + " is not a member of the cluster");
    }
    return m;
  }

  /** {@code host:port} of {@code nodeId}'s Redis protocol, as {@code -MOVED} names it. */
  public String endpoint(String nodeId) {
    return member(nodeId).endpoint();
  }

  /** Every shard's slots and serving node, in slot order. */
  public List<SlotOwner> slotOwners() {
    ClusterLayout layout = node.layout();
    List<SlotOwner> out = new ArrayList<>(layout.shardCount());
    for (int i = 0; i < layout.shardCount(); i++) {
      String serving = null;
      if (node.shardIndexes().contains(i)) {
        serving = node.shard(i).leaderId();
      }
      if (serving == null) {
        serving = layout.replicas(i).get(0);
      }
      out.add(new SlotOwner(layout.slots(i), serving, layout.shard(i).name()));
    }
    return out;
  }

  /** The slot ranges each node serves, every node present, in the members' order. */
  public Map<String, List<SlotRange>> slotsByNode() {
    Map<String, List<SlotRange>> out = new LinkedHashMap<>();
    for (ClusterMembers.Member m : members.members()) {
      out.put(m.id(), new ArrayList<>());
    }
    for (SlotOwner o : slotOwners()) {
      out.computeIfAbsent(o.nodeId(), k -> new ArrayList<>()).add(o.slots());
    }
    return out;
  }

  /** {@code config-epoch} of a node as {@code CLUSTER NODES} shows it: the highest term this node knows. */
  public long currentEpoch() {
    long max = 0;
    for (ShardStatus s : node.status()) {
      max = Math.max(max, s.term());
    }
    return max;
  }

  /** The {@code # Cluster} section of {@code INFO}: Redis' fields, then each local shard replica. */
  public String infoSection() {
    List<ShardStatus> status = node.status();
    StringBuilder b = new StringBuilder();
    b.append("cluster_enabled:1\r\n");
    b.append("kvstore_cluster_node:").append(node.nodeId()).append("\r\n");
    b.append("kvstore_cluster_shards:").append(node.layout().shardCount()).append("\r\n");
    for (ShardStatus s : status) {
      b.append("kvstore_shard_").append(s.shard()).append(":role=").append(s.role())
          .append(",term=").append(s.term())
          .append(",leader=").append(s.leaderId() == null ? "none" : s.leaderId())
          .append(",commit_index=").append(s.commitIndex())
          .append(",applied_index=").append(s.appliedIndex());
      for (Map.Entry<String, Long> lag : s.followerLag().entrySet()) {
        b.append(",lag_").append(lag.getKey()).append('=').append(lag.getValue());
      }
      b.append("\r\n");
    }
    return b.toString();
  }

  /** Whether every shard has a known leader (for {@code CLUSTER INFO}'s {@code cluster_state}). */
  public boolean allShardsLed() {
    for (int i : node.shardIndexes()) {
      if (node.shard(i).leaderId() == null) {
        return false;
      }
    }
    return true;
  }
}
