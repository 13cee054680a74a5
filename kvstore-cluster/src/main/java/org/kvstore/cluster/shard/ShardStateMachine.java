package org.kvstore.cluster.shard;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.kvstore.ReplicatedTable;
import org.kvstore.cluster.codec.ShardEntry;
import org.kvstore.cluster.codec.ShardEntryFormat;
import org.kvstore.cluster.codec.ShardQuery;
import org.kvstore.cluster.codec.TableEffects;
import org.kvstore.io.FileSystem;
import org.kvstore.spi.Mutation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raft state machine of one shard: applies the shard's log entries to its replicated tables in
 * the node's KVStore, with the entry's Raft index as the tables' LSN (SCALEOUT.md §3, docs/cluster.md).
 *
 * <ul>
 *   <li><b>One log.</b> The tables write no KVStore WAL record ({@link ReplicatedTable}); the Raft
 *       log is their write-ahead log.
 *   <li><b>Replay.</b> After a restart Ratis re-applies the log from the snapshot index + 1. A table
 *       whose persisted LSN is at or above an entry's index already holds that entry and is skipped;
 *       the others get it again, which is harmless because entries carry idempotent effects.
 *   <li><b>Every table advances with every entry</b> (also with entries that do not touch it, and with
 *       Ratis' own configuration entries), so a checkpoint of each covers the whole log prefix.
 *   <li><b>Snapshots</b> ({@link #takeSnapshot}, every {@code snapshot-entries} entries and on
 *       request): every table persists its state and is copied, with the (term, index) stamp, into a
 *       new snapshot directory ({@link ShardSnapshots}; the LSM engine hard-links its files). Ratis
 *       may then purge its log up to the snapshot. At start the newest stamp is the last applied
 *       position Ratis replays from.
 *   <li><b>Install</b> ({@link #reinitialize}): a follower that needs entries the leader's log no
 *       longer has (it was down while the log was purged, or its disk was wiped) receives the
 *       leader's newest snapshot from Ratis, file by file, and replaces each table with its copy
 *       ({@link KVStore#installReplicatedTable}); it then goes on from the snapshot's index. A crash
 *       in between is finished at the next start, from the received snapshot.
 *   <li><b>Reads</b> ({@link #query}) read the tables directly; Ratis calls it only after the
 *       ReadIndex protocol made sure every entry committed before the read is applied here.
 * </ul>
 *
 * <p>Thread safety: Ratis calls the apply methods, {@link #takeSnapshot} and {@link #reinitialize}
 * from one thread, in log order (and pauses applying around an install); {@link #query} and
 * {@link #table} from any thread: the tables are an immutable map replaced whole by an install.
 */
public final class ShardStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(ShardStateMachine.class);

  /** Snapshots kept on disk: the newest, and the one before it for a transfer still reading it. */
  static final int SNAPSHOTS_KEPT = 2;

  private final String shard;
  private final KVStore store;
  /** The store's file layer: the snapshots and the stamp are written through it. */
  private final FileSystem fs;
  private volatile Map<String, ReplicatedTable> tables;
  private final AtomicLong snapshotsInstalled = new AtomicLong();
  private final AtomicLong entriesApplied = new AtomicLong();
  private final AtomicLong tableAppliesSkipped = new AtomicLong();
  private final AtomicLong firstIndexApplied = new AtomicLong(-1);
  private volatile Path stateDir;
  private volatile Path logDir;
  private volatile ShardSnapshots snapshots;
  private volatile SnapshotInfo latestSnapshot;

  /**
   * @param shard the shard's name: the database of its tables in {@code store}
   * @param store the node's store
   * @param tables the shard's replicated tables by name (each table's name within the shard)
   */
  public ShardStateMachine(String shard, KVStore store, Map<String, ReplicatedTable> tables) {
    if (tables.isEmpty()) {
      throw new IllegalArgumentException("shard " + shard + " has no tables");
    }
    this.shard = shard;
    this.store = store;
    this.fs = store.options().fileSystem();
    this.tables = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tables));
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
    getLifeCycle().transition(LifeCycle.State.STARTING);
    super.initialize(server, groupId, storage);
    logDir = storage.getStorageDir().getCurrentDir().toPath();
    stateDir = storage.getStorageDir().getStateMachineDir().toPath();
    snapshots = new ShardSnapshots(fs, stateDir.resolve(ShardSnapshots.DIR));
    fs.createDirectories(snapshots.root());
    ShardSnapshots.Taken taken = snapshots.latest();
    if (taken != null) {
      loadSnapshot(taken, "starting");
    } else {
      ShardSnapshotFile.Stamp legacy = ShardSnapshotFile.read(fs, stateDir); // a stamp without copies (format v1's place)
      if (legacy != null) {
        for (Map.Entry<String, ReplicatedTable> t : tables.entrySet()) {
          checkPersistedUpTo(t.getKey(), t.getValue(), legacy, stateDir.resolve(ShardSnapshotFile.NAME));
        }
        TermIndex ti = TermIndex.valueOf(legacy.term(), legacy.index());
        latestSnapshot = new FileListSnapshotInfo(List.of(), ti);
        setLastAppliedTermIndex(ti);
        LOG.info("shard {}: starting from snapshot stamp {} (tables persisted up to {})", shard, ti, persistedIndexes());
      }
    }
    getLifeCycle().transition(LifeCycle.State.RUNNING);
  }

  /**
   * Makes {@code taken} the state machine's position: every table whose persisted state is below
   * the snapshot is replaced by the snapshot's copy of it (after an install, or a crash during one);
   * tables at or above it keep their state, and Ratis replays the log above the snapshot.
   */
  private void loadSnapshot(ShardSnapshots.Taken taken, String why) throws IOException {
    ShardSnapshotFile.Stamp stamp = taken.stamp();
    Map<String, ReplicatedTable> next = new LinkedHashMap<>(tables);
    for (Map.Entry<String, ReplicatedTable> t : tables.entrySet()) {
      if (t.getValue().appliedLsn() >= stamp.index()) {
        continue;
      }
      Path copy = taken.table(t.getKey());
      if (!fs.exists(copy)) {
        checkPersistedUpTo(t.getKey(), t.getValue(), stamp, taken.dir());
      }
      ReplicatedTable installed = store.installReplicatedTable(shard, t.getKey(), copy);
      if (installed.persistedLsn() != stamp.index()) {
        throw new IOException("shard " + shard + ": the copy of table " + t.getKey() + " in " + copy
            + " holds index " + installed.persistedLsn() + ", not the snapshot's index " + stamp.index());
      }
      next.put(t.getKey(), installed);
      snapshotsInstalled.incrementAndGet();
    }
    tables = java.util.Collections.unmodifiableMap(next);
    TermIndex ti = TermIndex.valueOf(stamp.term(), stamp.index());
    latestSnapshot = new FileListSnapshotInfo(ShardSnapshots.files(taken), ti);
    setLastAppliedTermIndex(ti);
    LOG.info("shard {}: {} from snapshot {} in {} (tables persisted up to {})", shard, why, ti, taken.dir(),
        persistedIndexes());
  }

  private void checkPersistedUpTo(String name, ReplicatedTable t, ShardSnapshotFile.Stamp stamp, Path where)
      throws IOException {
    if (t.persistedLsn() < stamp.index()) {
      throw new IOException("shard " + shard + ": table " + name + " has persisted state up to index "
          + t.persistedLsn() + ", below the snapshot index " + stamp.index() + " (" + where
          + "), and the snapshot holds no copy of it: the log below the snapshot may be purged, so the table"
          + " cannot be rebuilt");
    }
  }

  /** Ratis stops applying before it publishes an installed snapshot ({@link #reinitialize}). */
  @Override
  public void pause() {
    getLifeCycle().transition(LifeCycle.State.PAUSING);
    getLifeCycle().transition(LifeCycle.State.PAUSED);
  }

  /**
   * Called by Ratis once a snapshot from the leader is in the snapshot directory: the tables take
   * its copies and the state machine goes on from its index.
   */
  @Override
  public void reinitialize() throws IOException {
    getLifeCycle().transition(LifeCycle.State.STARTING);
    ShardSnapshots.Taken taken = snapshots.latest();
    if (taken == null) {
      throw new IOException("shard " + shard + ": no snapshot in " + snapshots.root() + " after an install");
    }
    loadSnapshot(taken, "installed");
    getLifeCycle().transition(LifeCycle.State.RUNNING);
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    return latestSnapshot;
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return new StateMachineStorage() {
      @Override
      public void init(RaftStorage raftStorage) {}

      @Override
      public SnapshotInfo getLatestSnapshot() {
        return latestSnapshot;
      }

      @Override
      public void format() {}

      @Override
      public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
        snapshots.removeAllBut(SNAPSHOTS_KEPT);
      }

      @Override
      public java.io.File getSnapshotDir() {
        return snapshots.root().toFile();
      }
    };
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long index = entry.getIndex();
    byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
    ShardEntry decoded = ShardEntryFormat.decode(data, logDir, index);
    Map<String, List<Mutation>> byTable = new LinkedHashMap<>();
    for (TableEffects t : decoded.tables()) {
      if (!tables.containsKey(t.table())) {
        throw new KVStoreException("shard " + shard + ": the entry at index " + index + " writes table "
            + t.table() + ", which the shard does not have (tables: " + tables.keySet() + ")");
      }
      byTable.put(t.table(), t.mutations());
    }
    advance(entry.getTerm(), index, byTable);
    entriesApplied.incrementAndGet();
    return CompletableFuture.completedFuture(Message.EMPTY);
  }

  /** Ratis' own entries (configuration, a new leader's first entry): every table advances too. */
  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    if (index > getLastAppliedTermIndex().getIndex()) {
      advance(term, index, Map.of());
    }
  }

  private void advance(long term, long index, Map<String, List<Mutation>> byTable) {
    firstIndexApplied.compareAndSet(-1, index);
    for (Map.Entry<String, ReplicatedTable> t : tables.entrySet()) {
      ReplicatedTable table = t.getValue();
      if (table.persistedLsn() >= index) {
        tableAppliesSkipped.incrementAndGet(); // replay: the table's persisted state has this entry
        continue;
      }
      table.apply(index, byTable.getOrDefault(t.getKey(), List.of()));
    }
    updateLastAppliedTermIndex(term, index);
  }

  @Override
  public long takeSnapshot() throws IOException {
    TermIndex last = getLastAppliedTermIndex();
    if (last == null || last.getIndex() <= 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    SnapshotInfo previous = latestSnapshot;
    if (previous != null && previous.getIndex() == last.getIndex() && !previous.getFiles().isEmpty()) {
      return last.getIndex(); // nothing applied since
    }
    ShardSnapshotFile.Stamp stamp = new ShardSnapshotFile.Stamp(last.getTerm(), last.getIndex());
    Path tmp = snapshots.begin(stamp);
    try {
      for (String name : tables.keySet()) {
        long copied = store.backupReplicatedTable(shard, name, tmp.resolve(ShardSnapshots.TABLES).resolve(name));
        if (copied < last.getIndex()) {
          throw new IOException("shard " + shard + ": table " + name + " persisted up to index " + copied
              + " after a checkpoint at applied index " + last.getIndex());
        }
      }
    } catch (KVStoreException e) {
      // Ratis takes an IOException as a failed snapshot (logged, retried later); anything else would
      // stop the whole replica.
      throw new IOException("shard " + shard + ": snapshot at " + last + " failed: " + e.getMessage(), e);
    }
    ShardSnapshots.Taken taken = snapshots.commit(tmp, stamp);
    fs.delete(stateDir.resolve(ShardSnapshotFile.NAME)); // the stamp's place before snapshot copies
    latestSnapshot = new FileListSnapshotInfo(ShardSnapshots.files(taken), last);
    return last.getIndex();
  }

  /**
   * The read handle of the shard's table {@code name} on this replica. Reading it directly sees only
   * what this replica applied: call {@link org.kvstore.cluster.Shard#readBarrier} first for a
   * linearizable read.
   *
   * @throws IllegalArgumentException if the shard has no such table
   */
  public org.kvstore.Table table(String name) {
    return replicatedTable(name).table();
  }

  /**
   * The shard's replicated table {@code name} on this replica, for the leader's expiry to find
   * expired entries ({@link ReplicatedTable#scanIncludingExpired}); never write it: only this state
   * machine applies entries.
   *
   * @throws IllegalArgumentException if the shard has no such table
   */
  public ReplicatedTable replicatedTable(String name) {
    ReplicatedTable t = tables.get(name);
    if (t == null) {
      throw new IllegalArgumentException("shard " + shard + " has no table " + name);
    }
    return t;
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    try {
      ShardQuery q = ShardQuery.decode(request.getContent().toByteArray());
      if (q.kind() == ShardQuery.BARRIER) {
        return CompletableFuture.completedFuture(Message.EMPTY);
      }
      ReplicatedTable t = tables.get(q.table());
      if (t == null) {
        throw new IllegalArgumentException("shard " + shard + " has no table " + q.table());
      }
      byte[] reply = ShardQuery.encodeEntry(t.table().getEntry(q.key()));
      return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }


  /** Tables replaced by a snapshot's copy since start (after an install from the leader). */
  public long tablesInstalled() {
    return snapshotsInstalled.get();
  }

  /** Log entries applied since start (replayed ones included). */
  public long entriesApplied() {
    return entriesApplied.get();
  }

  /** Table applies skipped since start because the table's persisted state already had the entry. */
  public long tableAppliesSkipped() {
    return tableAppliesSkipped.get();
  }

  /**
   * The first log index applied since start (-1: none yet): the index after the snapshot stamp, or
   * the log's first index when there is no stamp.
   */
  public long firstIndexApplied() {
    return firstIndexApplied.get();
  }

  /** The last applied (term, index). */
  public TermIndex lastApplied() {
    return getLastAppliedTermIndex();
  }

  private Map<String, Long> persistedIndexes() {
    Map<String, Long> out = new LinkedHashMap<>();
    tables.forEach((name, t) -> out.put(name, t.persistedLsn()));
    return out;
  }

  @Override
  public String toString() {
    return "ShardStateMachine(" + shard + ")";
  }
}
