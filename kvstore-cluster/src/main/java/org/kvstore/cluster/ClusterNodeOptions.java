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
 * @param snapshotEntries a shard replica takes a snapshot (a copy of its tables, after which Raft
 *     purges its log up to it) once this many log entries were applied since its last one
 * @param logSegmentBytes the size at which a Raft log segment is closed and a new one started; the
 *     log is purged a closed segment at a time
 * @param raftListenAddress {@code host:port} the node's Raft server listens on, or {@code null} for its
 *     address in the layout; set when the layout's address (which the other nodes connect to) is a
 *     proxy or a NAT in front of the node
 * @param batchWait at most how long a shard leader's next batch of writes waits for the writers
 *     of its last batch to come back ({@link org.kvstore.cluster.shard.ProposalBatcher}); zero
 *     sends what is queued at once
 * @param ackBeforeCommit unsafe, for the fault tests' negative control: a leader answers a write
 *     as soon as it has queued it, before a majority has it durably (as Redis' asynchronous
 *     replication does), so a leader's crash or isolation loses acknowledged writes, and a read
 *     right after a write may miss it
 * @param maxWriteBytes the largest write a shard takes, in bytes of keys and values (and
 *     {@link org.kvstore.cluster.shard.ProposalBatcher#MUTATION_OVERHEAD} per key): it is one Raft
 *     entry, which the leader sends to each follower in one message, so Ratis' appender buffer and
 *     gRPC's message limit are set from it; a larger write is refused before anything is proposed
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
    long snapshotEntries,
    long logSegmentBytes,
    String raftListenAddress,
    Duration batchWait,
    boolean ackBeforeCommit,
    long maxWriteBytes,
    StoreOptions storeOptions) {

  public ClusterNodeOptions {
    if (nodeId == null || dataDirectory == null || layout == null || electionTimeoutMin == null || electionTimeoutMax == null || requestTimeout == null
        || batchWait == null || storeOptions == null) {
      throw new IllegalArgumentException("every cluster node option must be given");
    }
    if (!layout.nodes().containsKey(nodeId)) {
      throw new IllegalArgumentException("the cluster's nodes " + layout.nodes().keySet()
          + " do not include this node " + nodeId);
    }
    if (snapshotEntries < 1) {
      throw new IllegalArgumentException("snapshotEntries must be at least 1, was " + snapshotEntries);
    }
    if (logSegmentBytes < MIN_LOG_SEGMENT_BYTES) {
      throw new IllegalArgumentException("logSegmentBytes must be at least " + MIN_LOG_SEGMENT_BYTES + ", was "
          + logSegmentBytes);
    }
    if (batchWait.isNegative() || batchWait.compareTo(requestTimeout) >= 0) {
      throw new IllegalArgumentException("batchWait must be at least zero and below requestTimeout (" + requestTimeout
          + "), was " + batchWait);
    }
    if (maxWriteBytes < MIN_MAX_WRITE_BYTES || maxWriteBytes > MAX_MAX_WRITE_BYTES) {
      throw new IllegalArgumentException("maxWriteBytes must be between " + MIN_MAX_WRITE_BYTES + " and "
          + MAX_MAX_WRITE_BYTES + ", was " + maxWriteBytes);
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

  /** The default of {@link #snapshotEntries()}. */
  public static final long DEFAULT_SNAPSHOT_ENTRIES = 100_000;
  /** The default of {@link #logSegmentBytes()} (Ratis' own). */
  public static final long DEFAULT_LOG_SEGMENT_BYTES = 32L << 20;
  /** The default of {@link #batchWait()}. */
  public static final Duration DEFAULT_BATCH_WAIT = Duration.ofMillis(2);
  /** The default of {@link #maxWriteBytes()}. */
  public static final long DEFAULT_MAX_WRITE_BYTES = 16L << 20;
  /** The smallest {@link #maxWriteBytes()} accepted: a batch of small writes is cut at 1 MiB. */
  public static final long MIN_MAX_WRITE_BYTES = 1L << 20;
  /** The largest {@link #maxWriteBytes()} accepted. */
  public static final long MAX_MAX_WRITE_BYTES = 256L << 20;
  /** The smallest {@link #logSegmentBytes()} accepted. */
  public static final long MIN_LOG_SEGMENT_BYTES = 64L << 10;

  /**
   * Options with the timeouts SCALEOUT.md §5 suggests for small machines: 1 s / 2 s, requests 10 s;
   * a snapshot every {@link #DEFAULT_SNAPSHOT_ENTRIES} entries.
   */
  public static ClusterNodeOptions of(String nodeId, Path dataDirectory, ClusterLayout layout) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, Duration.ofSeconds(1),
        Duration.ofSeconds(2), Duration.ofSeconds(10), DEFAULT_SNAPSHOT_ENTRIES, DEFAULT_LOG_SEGMENT_BYTES,
        null, DEFAULT_BATCH_WAIT, false, DEFAULT_MAX_WRITE_BYTES, StoreOptions.defaults());
  }

  public ClusterNodeOptions withTimeouts(Duration min, Duration max, Duration request) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, min, max, request, snapshotEntries, logSegmentBytes,
        raftListenAddress, batchWait, ackBeforeCommit, maxWriteBytes, storeOptions);
  }

  public ClusterNodeOptions withSnapshotEntries(long entries) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, electionTimeoutMin, electionTimeoutMax,
        requestTimeout, entries, logSegmentBytes, raftListenAddress, batchWait, ackBeforeCommit, maxWriteBytes, storeOptions);
  }

  public ClusterNodeOptions withBatchWait(Duration wait) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, electionTimeoutMin, electionTimeoutMax,
        requestTimeout, snapshotEntries, logSegmentBytes, raftListenAddress, wait, ackBeforeCommit, maxWriteBytes, storeOptions);
  }

  public ClusterNodeOptions withLogSegmentBytes(long bytes) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, electionTimeoutMin, electionTimeoutMax,
        requestTimeout, snapshotEntries, bytes, raftListenAddress, batchWait, ackBeforeCommit, maxWriteBytes, storeOptions);
  }

  public ClusterNodeOptions withRaftListenAddress(String hostPort) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, electionTimeoutMin, electionTimeoutMax,
        requestTimeout, snapshotEntries, logSegmentBytes, hostPort, batchWait, ackBeforeCommit, maxWriteBytes, storeOptions);
  }

  /** With {@link #ackBeforeCommit()}: unsafe, for negative controls only. */
  public ClusterNodeOptions withAckBeforeCommit(boolean ack) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, electionTimeoutMin, electionTimeoutMax,
        requestTimeout, snapshotEntries, logSegmentBytes, raftListenAddress, batchWait, ack, maxWriteBytes, storeOptions);
  }

  public ClusterNodeOptions withMaxWriteBytes(long bytes) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, electionTimeoutMin, electionTimeoutMax,
        requestTimeout, snapshotEntries, logSegmentBytes, raftListenAddress, batchWait, ackBeforeCommit, bytes,
        storeOptions);
  }

  /** The {@code host:port} the node's Raft server listens on. */
  public String raftListen() {
    return raftListenAddress != null ? raftListenAddress : layout.nodes().get(nodeId);
  }

  public ClusterNodeOptions withStoreOptions(StoreOptions options) {
    return new ClusterNodeOptions(nodeId, dataDirectory, layout, electionTimeoutMin,
        electionTimeoutMax, requestTimeout, snapshotEntries, logSegmentBytes, raftListenAddress, batchWait, ackBeforeCommit, maxWriteBytes,
        options);
  }
}
