package org.kvstore.cluster;

import java.nio.file.Path;
import java.time.Duration;
import org.kvstore.StoreOptions;

/**
 * How to start a {@link ClusterNode}.
 *
 * @param nodeId this node's id, one of the layout's nodes (it listens on its Raft address there)
 * @param dataDirectory the node's own directory: its KVStore in {@code store/}, its Raft logs and
 *     snapshot stamps in {@code raft/}
 * @param layout the cluster's nodes, shards and tables, the same on every node
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
    ClusterLayout layout,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    Duration requestTimeout,
    StoreOptions storeOptions) {

  public ClusterNodeOptions {
    if (nodeId == null || dataDirectory == null || layout == null || electionTimeoutMin == null || electionTimeoutMax == null || requestTimeout == null
        || storeOptions == null) {
      throw new IllegalArgumentException("every cluster node option must be given");
    }
    if (!layout.nodes().containsKey(nodeId)) {
      throw new IllegalArgumentException("the cluster's nodes " + layout.nodes().keySet()
          + " do not include this node " + nodeId);
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
  public static ClusterNodeOptions of(String nodeId, Path dataDirectory, ClusterLayout layout) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, Duration.ofSeconds(1),
        Duration.ofSeconds(2), Duration.ofSeconds(10), StoreOptions.defaults());
  }

  public ClusterNodeOptions withTimeouts(Duration min, Duration max, Duration request) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, min, max, request, storeOptions);
  }

  public ClusterNodeOptions withStoreOptions(StoreOptions options) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, electionTimeoutMin,
        electionTimeoutMax, requestTimeout, options);
  }
}
