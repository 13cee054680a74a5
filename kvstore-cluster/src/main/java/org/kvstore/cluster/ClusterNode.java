package org.kvstore.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.kvstore.ReplicatedTable;
import org.kvstore.cluster.shard.ShardStateMachine;

/**
 * One node of a KVStore cluster: a KVStore holding the node's replicas of shard tables, and one
 * Ratis server hosting the node's replica of the shard's Raft group (this foundation: one shard per
 * node; see docs/cluster.md for what is not built yet).
 *
 * <pre>{@code
 * Map<String, String> peers = Map.of("n1", "127.0.0.1:9871", "n2", "127.0.0.1:9872", "n3", "127.0.0.1:9873");
 * ShardSpec shard = new ShardSpec("s0", List.of("0"), "lsm");
 * try (ClusterNode n1 = ClusterNode.start(ClusterNodeOptions.of("n1", Path.of("data/n1"), peers, shard))) {
 *   n1.shard().put("0", key, value);   // on the leader; elsewhere NotLeaderException names it
 * }
 * }</pre>
 *
 * <p>Directory layout: {@code <data>/store} is the KVStore (the shard's tables are the database
 * named like the shard, created with {@code replicated=true}); {@code <data>/raft} holds Ratis'
 * storage, with the group's log under {@code <group uuid>/current} and the shard's snapshot stamp
 * under {@code <group uuid>/sm}.
 *
 * <p>Raft settings (SCALEOUT.md §5): reads {@code LINEARIZABLE} with the leader lease; Ratis' own
 * snapshot install off (this layer cannot install yet, and keeps the log a lagging follower needs);
 * the log fsynced before an entry counts towards a majority (Ratis' default).
 *
 * <p>Thread safety: thread-safe; {@link #close} once.
 */
public final class ClusterNode implements AutoCloseable {
  static final String STORE_DIR = "store";
  static final String RAFT_DIR = "raft";

  private final ClusterNodeOptions options;
  private final KVStore store;
  private final RaftServer server;
  private final RaftGroupId groupId;
  private final ShardStateMachine stateMachine;
  private final Shard shard;

  private ClusterNode(ClusterNodeOptions options, KVStore store, RaftServer server, RaftGroupId groupId,
      ShardStateMachine stateMachine) {
    this.options = options;
    this.store = store;
    this.server = server;
    this.groupId = groupId;
    this.stateMachine = stateMachine;
    this.shard = new Shard(options.shard(), options.nodeId(), server, groupId,
        options.requestTimeout().toMillis());
  }

  /**
   * Opens the node's store (creating the shard's tables on first start), starts its Raft server on
   * its address and joins the shard's group, replaying the log above the tables' persisted state.
   * Returns without waiting for a leader.
   *
   * @throws ClusterException if the Raft server cannot start (the address is taken, storage damaged)
   */
  public static ClusterNode start(ClusterNodeOptions options) {
    Path dir = options.dataDirectory().toAbsolutePath().normalize();
    KVStore store = KVStore.open(dir.resolve(STORE_DIR), options.storeOptions());
    try {
      ShardSpec spec = options.shard();
      Map<String, ReplicatedTable> tables = openTables(store, spec);
      ShardStateMachine sm = new ShardStateMachine(spec.name(), tables);
      RaftGroupId groupId = groupIdOf(spec);
      List<RaftPeer> peers = new ArrayList<>();
      options.peers().forEach((id, address) ->
          peers.add(RaftPeer.newBuilder().setId(id).setAddress(address).build()));
      Path raftDir = dir.resolve(RAFT_DIR);
      Files.createDirectories(raftDir);
      boolean existing = Files.isDirectory(raftDir.resolve(groupId.getUuid().toString()));
      RaftServer server = RaftServer.newBuilder()
          .setServerId(RaftPeerId.valueOf(options.nodeId()))
          .setGroup(RaftGroup.valueOf(groupId, peers))
          .setProperties(raftProperties(options, raftDir))
          .setStateMachine(sm)
          .setOption(existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
          .build();
      try {
        server.start();
      } catch (IOException | RuntimeException e) {
        closeQuietly(server, e);
        throw e;
      }
      return new ClusterNode(options, store, server, groupId, sm);
    } catch (IOException | RuntimeException e) {
      try {
        store.close();
      } catch (KVStoreException suppressed) {
        e.addSuppressed(suppressed);
      }
      if (e instanceof KVStoreException k) {
        throw k;
      }
      throw new ClusterException("node " + options.nodeId() + ": starting the Raft server failed", e);
    }
  }

  private static void closeQuietly(RaftServer server, Exception cause) {
    try {
      server.close();
    } catch (IOException e) {
      cause.addSuppressed(e);
    }
  }

  /** The shard's group id: derived from its name, so every node computes the same one. */
  static RaftGroupId groupIdOf(ShardSpec spec) {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(("kvstore-shard:" + spec.name()).getBytes(StandardCharsets.UTF_8)));
  }

  private static Map<String, ReplicatedTable> openTables(KVStore store, ShardSpec spec) {
    if (!store.listDBs().contains(spec.name())) {
      store.createDB(spec.name());
    }
    List<String> existing = store.listTables(spec.name());
    Map<String, ReplicatedTable> tables = new LinkedHashMap<>();
    for (String t : spec.tables()) {
      if (!existing.contains(t)) {
        Properties p = new Properties();
        p.setProperty("replicated", "true");
        store.createTable(spec.name(), t, spec.engine(), p);
      }
      tables.put(t, store.replicatedTable(spec.name(), t));
    }
    return tables;
  }

  private static RaftProperties raftProperties(ClusterNodeOptions o, Path raftDir) {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(raftDir.toFile()));
    String address = o.peers().get(o.nodeId());
    int colon = address.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("peer address " + address + " of node " + o.nodeId() + " is not host:port");
    }
    GrpcConfigKeys.Server.setHost(p, address.substring(0, colon));
    GrpcConfigKeys.Server.setPort(p, Integer.parseInt(address.substring(colon + 1)));
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(o.electionTimeoutMin()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(o.electionTimeoutMax()));
    RaftServerConfigKeys.Rpc.setRequestTimeout(p, millis(o.requestTimeout()));
    // Never Ratis' DEFAULT read option: it reads a deposed leader's state (SCALEOUT.md §5).
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);
    RaftServerConfigKeys.Read.setTimeout(p, millis(o.requestTimeout()));
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, false);
    return p;
  }

  private static TimeDuration millis(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
  }

  public String nodeId() {
    return options.nodeId();
  }

  /** The node's handle on its shard replica. */
  public Shard shard() {
    return shard;
  }

  /** The node's store (the shard's tables are replicated: read them, never write them directly). */
  public KVStore store() {
    return store;
  }

  /** The shard's state machine on this node (its counters, for tests and metrics). */
  public ShardStateMachine stateMachine() {
    return stateMachine;
  }

  /**
   * Takes a snapshot of this replica now: every shard table persists its state and the (term,
   * index) stamp is replaced; Ratis may then purge the log up to what every replica has. Returns the
   * snapshot's index.
   */
  public long takeSnapshot() {
    // creation gap 1: snapshot whenever anything was applied since the last one (Ratis' default gap is 1024)
    SnapshotManagementRequest request = SnapshotManagementRequest.newCreate(ClientId.randomId(),
        RaftPeerId.valueOf(options.nodeId()), groupId, 1, options.requestTimeout().toMillis(), 1);
    try {
      RaftClientReply reply = server.snapshotManagement(request);
      if (!reply.isSuccess()) {
        throw new ClusterException("node " + options.nodeId() + ": snapshot failed: " + reply.getException(),
            reply.getException());
      }
      return reply.getLogIndex();
    } catch (IOException e) {
      throw new ClusterException("node " + options.nodeId() + ": snapshot failed", e);
    }
  }

  /**
   * Stops the Raft server (after it applied what it has committed), then closes the store, which
   * checkpoints the tables. Idempotent.
   */
  @Override
  public synchronized void close() {
    KVStoreException error = null;
    try {
      server.close();
    } catch (IOException e) {
      error = new ClusterException("node " + options.nodeId() + ": stopping the Raft server failed", e);
    }
    try {
      store.close();
    } catch (KVStoreException e) {
      if (error == null) {
        error = e;
      } else {
        error.addSuppressed(e);
      }
    }
    if (error != null) {
      throw error;
    }
  }

  @Override
  public String toString() {
    return "ClusterNode(" + options.nodeId() + ", shard " + options.shard().name() + ")";
  }
}
