package org.kvstore.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.kvstore.KVStoreException;
import org.kvstore.StoreOptions;
import org.kvstore.testkit.LoopbackPorts;

/**
 * Three cluster nodes in this JVM, on free loopback ports, each with its own data directory, for
 * tests: start, stop and restart nodes, find the leader. Timeouts are short but leave room for a
 * busy 2-core machine.
 *
 * <p>Thread safety: starting and stopping nodes is confined to one thread at a time (the test's, or
 * a fault thread's); {@link #node} and {@link #runningLeader} may be called from any thread (the
 * running nodes are a concurrent map).
 */
final class TestCluster implements AutoCloseable {
  static final String TABLE = "0";
  static final List<String> TABLES = List.of(TABLE, "meta");
  static final Duration WAIT = Duration.ofSeconds(20);

  private final Path root;
  private final int shards;
  private final Map<String, String> peers = new LinkedHashMap<>();
  private final Map<String, ClusterNode> nodes = new ConcurrentHashMap<>();
  private final Map<String, StoreOptions> storeOptions = new LinkedHashMap<>();
  private long snapshotEntries = ClusterNodeOptions.DEFAULT_SNAPSHOT_ENTRIES;
  private long logSegmentBytes = ClusterNodeOptions.DEFAULT_LOG_SEGMENT_BYTES;
  private long maxWriteBytes = ClusterNodeOptions.DEFAULT_MAX_WRITE_BYTES;

  TestCluster(Path root) throws IOException {
    this(root, 1);
  }

  /** Three nodes, {@code shards} shards (each replicated on all three). */
  TestCluster(Path root, int shards) throws IOException {
    this.root = root;
    this.shards = shards;
    for (int i = 1; i <= 3; i++) {
      peers.put("n" + i, "127.0.0.1:" + LoopbackPorts.pick());
    }
  }

  ClusterLayout layout() {
    return new ClusterLayout(peers, shards, TABLES, "lsm");
  }

  List<String> ids() {
    return List.copyOf(peers.keySet());
  }

  /** Uses {@code options} for {@code id}'s store from its next start on. */
  void storeOptions(String id, StoreOptions options) {
    storeOptions.put(id, options);
  }

  /** Snapshots every {@code entries} applied entries, log segments of {@code segmentBytes}, from the next start on. */
  void raftLog(long entries, long segmentBytes) {
    snapshotEntries = entries;
    logSegmentBytes = segmentBytes;
  }

  /** Takes writes of up to {@code bytes} from the next start on. */
  void maxWriteBytes(long bytes) {
    maxWriteBytes = bytes;
  }

  /** The node's data directory (its store and its Raft storage). */
  Path dataDirectory(String id) {
    return root.resolve(id);
  }

  ClusterNode start(String id) {
    ClusterNodeOptions o = ClusterNodeOptions.of(id, root.resolve(id), layout())
        .withTimeouts(Duration.ofMillis(600), Duration.ofMillis(1200), Duration.ofSeconds(10))
        .withSnapshotEntries(snapshotEntries).withLogSegmentBytes(logSegmentBytes).withMaxWriteBytes(maxWriteBytes)
        .withStoreOptions(storeOptions.getOrDefault(id, StoreOptions.defaults()));
    ClusterNode n = ClusterNode.start(o);
    nodes.put(id, n);
    return n;
  }

  void startAll() {
    for (String id : peers.keySet()) {
      start(id);
    }
  }

  ClusterNode node(String id) {
    return nodes.get(id);
  }

  /** Stops {@code id} (Raft server, then the store, which checkpoints unless its disk "crashed"). */
  void stop(String id) {
    ClusterNode n = nodes.remove(id);
    try {
      n.close();
    } catch (KVStoreException e) {
      // a node whose file system was made to fail cannot checkpoint: that is the crash being simulated
    }
  }

  void stopAll() {
    for (String id : List.copyOf(nodes.keySet())) {
      stop(id);
    }
  }

  /** The running node that leads shard 0, waiting up to {@link #WAIT} for one. */
  ClusterNode awaitLeader() throws InterruptedException {
    return awaitLeader(0);
  }

  /** The running node that leads shard {@code shard}, waiting up to {@link #WAIT} for one. */
  ClusterNode awaitLeader(int shard) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      for (ClusterNode n : nodes.values()) {
        if (n.shard(shard).isLeader()) {
          return n;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no leader of shard " + shard + " within " + WAIT + " among " + nodes.keySet());
  }

  /** Waits until every shard is led by its preferred replica (Ratis yields to the higher priority). */
  void awaitPreferredLeaders() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos() * 2;
    ClusterLayout layout = layout();
    while (true) {
      Map<Integer, String> wrong = new LinkedHashMap<>();
      for (int i = 0; i < shards; i++) {
        String preferred = layout.replicas(i).get(0);
        if (!node(preferred).shard(i).isLeader()) {
          wrong.put(i, preferred);
        }
      }
      if (wrong.isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("shards not led by their preferred node (shard=node): " + wrong);
      }
      Thread.sleep(100);
    }
  }

  /**
   * A running node that believes it leads shard {@code shard}, or null when none does right now (an
   * election, or the leader is stopped).
   */
  ClusterNode runningLeader(int shard) {
    for (ClusterNode n : nodes.values()) {
      if (n.shard(shard).isLeader()) {
        return n;
      }
    }
    return null;
  }

  /** Waits until every running node has applied at least {@code index}. */
  void awaitApplied(long index) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    for (ClusterNode n : nodes.values()) {
      while (n.shard(0).appliedIndex() < index) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(n.nodeId() + " applied only " + n.shard(0).appliedIndex() + " < " + index);
        }
        Thread.sleep(20);
      }
    }
  }

  @Override
  public void close() {
    stopAll();
  }
}
