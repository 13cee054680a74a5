package org.kvstore.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.kvstore.StoreOptions;

/**
 * How to start a {@link ClusterNode}.
 *
 * @param nodeId this node's id, one of {@code peers}' keys
 * @param dataDirectory the node's own directory: its KVStore in {@code store/}, its Raft logs and
 *     snapshot stamps in {@code raft/}
 * @param peers every replica of the shard: node id to Raft address {@code host:port}, this node
 *     included (it listens on its own address)
 * @param shard the shard the node hosts a replica of
 * @param electionTimeoutMin Raft's {@code raft.server.rpc.timeout.min}: a follower that hears no
 *     leader for a random time between min and max starts an election
 * @param electionTimeoutMax Raft's {@code raft.server.rpc.timeout.max}
 * @param requestTimeout how long a write or read waits for Raft before failing
 * @param storeOptions the options of the node's KVStore
 *
 * <p>Thread safety: immutable.
 */
public record ClusterNodeOptions(
    String nodeId,
    Path dataDirectory,
    Map<String, String> peers,
    ShardSpec shard,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    Duration requestTimeout,
    StoreOptions storeOptions) {

  public ClusterNodeOptions {
    if (nodeId == null || dataDirectory == null || peers == null || shard == null
        || electionTimeoutMin == null || electionTimeoutMax == null || requestTimeout == null
        || storeOptions == null) {
      throw new IllegalArgumentException("every cluster node option must be given");
    }
    peers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(peers));
    if (!peers.containsKey(nodeId)) {
      throw new IllegalArgumentException("peers " + peers.keySet() + " do not include this node " + nodeId);
    }
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("requestTimeout must be positive, was " + requestTimeout);
    }
    if (electionTimeoutMin.isNegative() || electionTimeoutMin.isZero()
        || electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
      throw new IllegalArgumentException("electionTimeoutMax (" + electionTimeoutMax
          + ") must be above electionTimeoutMin (" + electionTimeoutMin + "), both positive");
    }
  }

  /** Options with the timeouts SCALEOUT.md §5 suggests for small machines: 1 s / 2 s, requests 10 s. */
  public static ClusterNodeOptions of(String nodeId, Path dataDirectory, Map<String, String> peers, ShardSpec shard) {
    return new ClusterNodeOptions(nodeId, dataDirectory, peers, shard, Duration.ofSeconds(1),
        Duration.ofSeconds(2), Duration.ofSeconds(10), StoreOptions.defaults());
  }

  public ClusterNodeOptions withTimeouts(Duration min, Duration max, Duration request) {
    return new ClusterNodeOptions(nodeId, dataDirectory, peers, shard, min, max, request, storeOptions);
  }

  public ClusterNodeOptions withStoreOptions(StoreOptions options) {
    return new ClusterNodeOptions(nodeId, dataDirectory, peers, shard, electionTimeoutMin,
        electionTimeoutMax, requestTimeout, options);
  }
}
