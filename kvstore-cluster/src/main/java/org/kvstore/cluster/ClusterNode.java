package org.kvstore.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.kvstore.ExpiryStats;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.kvstore.ReplicatedTable;
import org.kvstore.StoreOptions;
import org.kvstore.cluster.shard.ShardStateMachine;

/**
 * One node of a KVStore cluster: one KVStore holding the node's replicas of shard tables (each
 * shard is a database of it, so caches, memtable budget and background threads are shared), and one
 * Ratis server hosting the Raft groups of every shard the node has a replica of ({@link
 * ClusterLayout}: with three nodes, all shards, leaders spread by priority).
 *
 * <pre>{@code
 * Map<String, String> nodes = Map.of("n1", "127.0.0.1:9871", "n2", "127.0.0.1:9872", "n3", "127.0.0.1:9873");
 * ClusterLayout layout = new ClusterLayout(nodes, 6, List.of("0"), "lsm");
 * try (ClusterNode n1 = ClusterNode.start(ClusterNodeOptions.of("n1", Path.of("data/n1"), layout))) {
 *   n1.shardOfKey(key).put("0", key, value);   // on the shard's leader; elsewhere NotLeaderException names it
 * }
 * }</pre>
 *
 * <p>Directory layout: {@code <data>/store} is the KVStore (shard {@code s<i>}'s tables are the
 * database {@code s<i>}, created with {@code replicated=true}); {@code <data>/raft} holds Ratis'
 * storage, one directory per group named by its id, with the group's log under {@code
 * <group uuid>/current} and the shard's snapshots under {@code <group uuid>/sm/snapshots}. A restart
 * finds the groups there; a layout that no longer matches them (another shard count, another node
 * list) stops the start, since the slots of the data already written would move.
 *
 * <p>Raft settings (SCALEOUT.md §5): reads {@code LINEARIZABLE} with the leader lease; a snapshot
 * every {@link ClusterNodeOptions#snapshotEntries} applied entries, the log purged up to it, and
 * Ratis' own chunked install of the newest snapshot to a follower behind the purged log
 * (docs/decisions/0037-cluster-snapshot-install.md); the log fsynced before an entry counts towards a
 * majority (Ratis' default).
 *
 * <p>Expired entries of the shards this node leads are removed through Raft by its {@link
 * ShardExpiry} (the store's active expiry skips the replicated shard tables).
 *
 * <p>Thread safety: thread-safe; {@link #close} once.
 */
public final class ClusterNode implements AutoCloseable {
  static final String STORE_DIR = "store";
  static final String RAFT_DIR = "raft";

  /** This node's replica of one shard. */
  private record Replica(RaftGroupId groupId, ShardStateMachine stateMachine, Shard shard) {}

  private final ClusterNodeOptions options;
  private final KVStore store;
  private final RaftServer server;
  private final Map<Integer, Replica> replicas;

  /** Sends the shards' batches of writes ({@link org.kvstore.cluster.shard.ProposalBatcher}). */
  private final ExecutorService proposers;

  /** Removes the expired entries of the shards this node leads, through Raft. */
  private final ShardExpiry expiry;

  private ClusterNode(ClusterNodeOptions options, KVStore store, RaftServer server, Map<Integer, Replica> replicas,
      ExecutorService proposers, ShardExpiry expiry) {
    this.options = options;
    this.proposers = proposers;
    this.expiry = expiry;
    this.store = store;
    this.server = server;
    this.replicas = replicas;
  }

  /**
   * Opens the node's store (creating its shards' tables on first start), starts its Raft server on
   * its address and joins the group of every shard it has a replica of (formatting the groups on
   * first start, recovering them after), replaying each log above its tables' persisted state.
   * Returns without waiting for leaders.
   *
   * @throws ClusterException if the Raft server cannot start (the address is taken, storage damaged)
   *     or the Raft storage holds other groups than the layout gives this node
   */
  public static ClusterNode start(ClusterNodeOptions options) {
    Path dir = options.dataDirectory().toAbsolutePath().normalize();
    ClusterLayout layout = options.layout();
    String nodeId = options.nodeId();
    KVStore store = KVStore.open(dir.resolve(STORE_DIR), options.storeOptions());
    RaftServer server = null;
    ExecutorService proposers = null;
    try {
      Map<Integer, RaftGroup> groups = new LinkedHashMap<>();
      Map<RaftGroupId, ShardStateMachine> machines = new HashMap<>();
      for (int i : layout.shardsOf(nodeId)) {
        ShardSpec spec = layout.shard(i);
        ShardStateMachine sm = new ShardStateMachine(spec.name(), store, openTables(store, spec));
        RaftGroup group = groupOf(layout, i);
        groups.put(i, group);
        machines.put(group.getGroupId(), sm);
      }
      Path raftDir = dir.resolve(RAFT_DIR);
      store.options().fileSystem().createDirectories(raftDir);
      Set<RaftGroupId> existing = groupDirectories(raftDir);
      Set<RaftGroupId> expected = new HashSet<>(machines.keySet());
      if (!existing.isEmpty() && !existing.equals(expected)) {
        throw new ClusterException("node " + nodeId + ": " + raftDir + " holds the Raft groups " + existing
            + " but the layout (" + layout.shardCount() + " shards over " + layout.nodes().keySet()
            + ") gives this node " + expected + "; a cluster's shards and nodes are fixed when it is created");
      }
      server = RaftServer.newBuilder()
          .setServerId(RaftPeerId.valueOf(nodeId))
          .setStateMachineRegistry(groupId -> {
            ShardStateMachine sm = machines.get(groupId);
            if (sm == null) {
              throw new IllegalStateException("node " + nodeId + ": Raft group " + groupId + " is no shard of this node");
            }
            return sm;
          })
          .setProperties(raftProperties(options, raftDir))
          .setOption(RaftStorage.StartupOption.RECOVER)
          .build();
      server.start();
      ClientId admin = ClientId.randomId();
      long callId = 0;
      for (RaftGroup group : groups.values()) {
        if (!existing.contains(group.getGroupId())) {
          RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(admin,
              RaftPeerId.valueOf(nodeId), callId++, group, true));
          if (!reply.isSuccess()) {
            throw new ClusterException("node " + nodeId + ": joining the Raft group " + group.getGroupId()
                + " failed: " + reply.getException(), reply.getException());
          }
        }
      }
      AtomicInteger proposerThreads = new AtomicInteger();
      proposers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "kv-shard-proposer-" + nodeId + "-" + proposerThreads.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
      Map<Integer, Replica> replicas = new LinkedHashMap<>();
      for (Map.Entry<Integer, RaftGroup> e : groups.entrySet()) {
        int i = e.getKey();
        RaftGroupId groupId = e.getValue().getGroupId();
        replicas.put(i, new Replica(groupId, machines.get(groupId), new Shard(layout.shard(i), nodeId, server, groupId,
            machines.get(groupId), options.requestTimeout().toMillis(), options.batchWait(), proposers,
            options.ackBeforeCommit(), options.maxWriteBytes())));
      }
      List<Shard> shards = new ArrayList<>();
      for (Replica r : replicas.values()) {
        shards.add(r.shard());
      }
      StoreOptions so = store.options();
      ShardExpiry expiry = new ShardExpiry(nodeId, shards, so.clock(), so.expiryInterval(), so.expiryEntriesPerPass(),
          options.requestTimeout());
      expiry.start();
      return new ClusterNode(options, store, server, Collections.unmodifiableMap(replicas), proposers, expiry);
    } catch (IOException | RuntimeException e) {
      if (proposers != null) {
        proposers.shutdownNow();
      }
      if (server != null) {
        closeQuietly(server, e);
      }
      try {
        store.close();
      } catch (KVStoreException suppressed) {
        e.addSuppressed(suppressed);
      }
      if (e instanceof KVStoreException k) {
        throw k;
      }
      throw new ClusterException("node " + nodeId + ": starting the Raft server failed", e);
    }
  }

  /**
   * The Raft groups with a directory in {@code raftDir}. Ratis writes that directory with its own
   * I/O, not through the store's file layer, so its listing is read directly.
   */
  private static Set<RaftGroupId> groupDirectories(Path raftDir) throws IOException {
    Set<RaftGroupId> ids = new HashSet<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(raftDir, Files::isDirectory)) {
      for (Path d : dirs) {
        try {
          ids.add(RaftGroupId.valueOf(UUID.fromString(d.getFileName().toString())));
        } catch (IllegalArgumentException notAGroup) {
          // Ratis ignores a directory whose name is not a group id; so does this check
        }
      }
    }
    return ids;
  }

  private static void closeQuietly(RaftServer server, Exception cause) {
    try {
      server.close();
    } catch (IOException e) {
      cause.addSuppressed(e);
    }
  }

  /** A shard's group id: derived from its name, so every node computes the same one. */
  static RaftGroupId groupIdOf(ShardSpec spec) {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(("kvstore-shard:" + spec.name()).getBytes(StandardCharsets.UTF_8)));
  }

  /** Shard {@code index}'s group: its replicas, the preferred leader with the higher priority. */
  static RaftGroup groupOf(ClusterLayout layout, int index) {
    List<String> ids = layout.replicas(index);
    List<RaftPeer> peers = new ArrayList<>();
    for (String id : ids) {
      peers.add(RaftPeer.newBuilder().setId(id).setAddress(layout.nodes().get(id))
          .setPriority(id.equals(ids.get(0)) ? 1 : 0).build());
    }
    return RaftGroup.valueOf(groupIdOf(layout.shard(index)), peers);
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

  /**
   * What a Raft entry holds beyond {@link ClusterNodeOptions#maxWriteBytes()}: the entry's own
   * encoding (table names, lengths, expiries) and Raft's header around it.
   */
  static final long ENTRY_ENCODING_SLACK = 1L << 20;

  private static RaftProperties raftProperties(ClusterNodeOptions o, Path raftDir) {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(raftDir.toFile()));
    String address = o.raftListen();
    int colon = address.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("Raft listen address " + address + " of node " + o.nodeId()
          + " is not host:port");
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
    // A follower behind the leader's purged log gets the leader's newest snapshot, file by file
    // (ShardStateMachine.reinitialize); so the log is purged up to each snapshot, whether or not
    // every follower has it (a node that is down does not keep the others' logs growing).
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(p, 1); // purges go by closed segments anyway
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(o.logSegmentBytes()));
    RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf(Math.min(o.logSegmentBytes(), 4L << 20)));
    // Send appends as soon as entries arrive (Ratis waits 10 ms between them by default, which
    // bounds a shard at about one round of appends per 10 ms; Ozone's SCM sets 0 too).
    RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p, TimeDuration.ZERO);
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, o.snapshotEntries());
    // A write is one entry, sent to a follower in one append (Ratis refuses an entry larger than
    // the appender's buffer), which gRPC must take in one message (Ratis wants that limit 1 MiB
    // above the buffer's), and the log's write buffer (direct memory, one per replica) must hold;
    // the write and log queues must hold at least two of them.
    long entryLimit = o.maxWriteBytes() + ENTRY_ENCODING_SLACK;
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf(entryLimit));
    RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(Math.max(entryLimit + 8,
        RaftServerConfigKeys.Log.WRITE_BUFFER_SIZE_DEFAULT.getSize())));
    GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(entryLimit + (2L << 20)));
    long queueBytes = Math.max(2 * entryLimit, RaftServerConfigKeys.Write.BYTE_LIMIT_DEFAULT.getSize());
    RaftServerConfigKeys.Write.setByteLimit(p, SizeInBytes.valueOf(queueBytes));
    RaftServerConfigKeys.Log.setQueueByteLimit(p, SizeInBytes.valueOf(queueBytes));
    return p;
  }

  private static TimeDuration millis(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
  }

  public String nodeId() {
    return options.nodeId();
  }

  public ClusterLayout layout() {
    return options.layout();
  }

  /** The shards this node has a replica of. */
  public Set<Integer> shardIndexes() {
    return replicas.keySet();
  }

  /**
   * The node's handle on its replica of shard {@code index}.
   *
   * @throws IllegalArgumentException if this node holds no replica of it
   */
  public Shard shard(int index) {
    return replica(index).shard();
  }

  /** The node's replica of the shard that owns {@code key}'s hash slot. */
  public Shard shardOfKey(byte[] key) {
    return shard(options.layout().shardOfKey(key));
  }

  private Replica replica(int index) {
    Replica r = replicas.get(index);
    if (r == null) {
      throw new IllegalArgumentException("node " + options.nodeId() + " holds no replica of shard " + index
          + " (it holds " + replicas.keySet() + ")");
    }
    return r;
  }

  /** The status of every shard replica of this node, in shard order (metrics, {@code INFO}). */
  public List<ShardStatus> status() {
    List<ShardStatus> status = new ArrayList<>(replicas.size());
    for (Replica r : replicas.values()) {
      status.add(r.shard().status());
    }
    return status;
  }

  /** The node's store (the shard tables are replicated: read them, never write them directly). */
  public KVStore store() {
    return store;
  }

  /** Shard {@code index}'s state machine on this node (its counters, for tests and metrics). */
  public ShardStateMachine stateMachine(int index) {
    return replica(index).stateMachine();
  }

  /**
   * Removes the expired entries of the shards this node leads now, a full round per table, as Raft
   * entries (followers apply the removes), and returns how many were removed. Also runs in the
   * background in bounded passes every {@link StoreOptions#expiryInterval()}; reads never see an
   * expired entry either way.
   *
   * @throws NotLeaderException if this node lost the lead of a shard meanwhile
   * @throws org.kvstore.OutcomeUnknownException if a removal's outcome is unknown (a leader change)
   */
  public long expireNow() {
    return expiry.runFullRounds();
  }

  /**
   * What this node's expiry of shard entries did since start (the store's own {@link
   * KVStore#expiryStats()} leaves the shard tables alone).
   */
  public ExpiryStats expiryStats() {
    return expiry.stats();
  }

  /** The node's shard expiry, for tests that act between its scan and its removals. */
  ShardExpiry shardExpiry() {
    return expiry;
  }

  /**
   * Takes a snapshot of this node's replica of shard {@code index} now: every table of the shard
   * persists its state and the (term, index) stamp is replaced; Ratis may then purge the log up to
   * what every replica has. Returns the snapshot's index.
   */
  public long takeSnapshot(int index) {
    RaftGroupId groupId = replica(index).groupId();
    // creation gap 1: snapshot whenever anything was applied since the last one (Ratis' default gap is 1024)
    SnapshotManagementRequest request = SnapshotManagementRequest.newCreate(ClientId.randomId(),
        RaftPeerId.valueOf(options.nodeId()), groupId, 1, options.requestTimeout().toMillis(), 1);
    try {
      RaftClientReply reply = server.snapshotManagement(request);
      if (!reply.isSuccess()) {
        throw new ClusterException("node " + options.nodeId() + ": snapshot of shard " + index + " failed: "
            + reply.getException(), reply.getException());
      }
      return reply.getLogIndex();
    } catch (IOException e) {
      throw new ClusterException("node " + options.nodeId() + ": snapshot of shard " + index + " failed", e);
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
      expiry.close(); // before the Raft server, so that a removal in flight finishes
    } catch (ClusterException e) {
      error = e;
    }
    proposers.shutdown(); // batches in flight finish (or fail) as the Raft server stops
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
    return "ClusterNode(" + options.nodeId() + ", shards " + replicas.keySet() + ")";
  }
}
