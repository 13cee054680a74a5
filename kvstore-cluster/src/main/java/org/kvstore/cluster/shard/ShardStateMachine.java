package org.kvstore.cluster.shard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.kvstore.KVStoreException;
import org.kvstore.ReplicatedTable;
import org.kvstore.cluster.codec.ShardEntry;
import org.kvstore.cluster.codec.ShardEntryFormat;
import org.kvstore.cluster.codec.ShardQuery;
import org.kvstore.cluster.codec.TableEffects;
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
 *   <li><b>Snapshots</b> ({@link #takeSnapshot}): every table persists its state, then the (term,
 *       index) stamp ({@link ShardSnapshotFile}) is replaced atomically. At start the stamp is the
 *       last applied position Ratis replays from.
 *   <li><b>Reads</b> ({@link #query}) read the tables directly; Ratis calls it only after the
 *       ReadIndex protocol made sure every entry committed before the read is applied here.
 * </ul>
 *
 * <p>Not yet: installing a snapshot from the leader ({@link #notifyInstallSnapshotFromLeader}
 * fails; the node runs with Ratis' own install turned off, and the log is purged only up to what
 * every follower has).
 *
 * <p>Thread safety: Ratis calls the apply methods and {@link #takeSnapshot} from one thread, in log
 * order; {@link #query} from any thread.
 */
public final class ShardStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(ShardStateMachine.class);

  private final String shard;
  private final Map<String, ReplicatedTable> tables;
  private final AtomicLong entriesApplied = new AtomicLong();
  private final AtomicLong tableAppliesSkipped = new AtomicLong();
  private final AtomicLong firstIndexApplied = new AtomicLong(-1);
  private volatile Path stateDir;
  private volatile Path logDir;
  private volatile SnapshotInfo latestSnapshot;

  /**
   * @param shard the shard's name, for messages
   * @param tables the shard's replicated tables by name (each table's name within the shard)
   */
  public ShardStateMachine(String shard, Map<String, ReplicatedTable> tables) {
    if (tables.isEmpty()) {
      throw new IllegalArgumentException("shard " + shard + " has no tables");
    }
    this.shard = shard;
    this.tables = new LinkedHashMap<>(tables);
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
    super.initialize(server, groupId, storage);
    logDir = storage.getStorageDir().getCurrentDir().toPath();
    stateDir = storage.getStorageDir().getStateMachineDir().toPath();
    Files.createDirectories(stateDir);
    ShardSnapshotFile.Stamp stamp = ShardSnapshotFile.read(stateDir);
    if (stamp != null) {
      for (Map.Entry<String, ReplicatedTable> t : tables.entrySet()) {
        long persisted = t.getValue().persistedLsn();
        if (persisted < stamp.index()) {
          throw new IOException("shard " + shard + ": table " + t.getKey() + " has persisted state up to index "
              + persisted + ", below the snapshot index " + stamp.index() + " (" + stateDir.resolve(ShardSnapshotFile.NAME)
              + "): the log below the snapshot may be purged, so the table cannot be rebuilt");
        }
      }
      TermIndex ti = TermIndex.valueOf(stamp.term(), stamp.index());
      latestSnapshot = new Snapshot(ti);
      setLastAppliedTermIndex(ti);
      LOG.info("shard {}: starting from snapshot {} (tables persisted up to {})", shard, ti, persistedIndexes());
    }
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
      public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) {
        // one stamp, replaced in place; the tables' files are the snapshot
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
    for (Map.Entry<String, ReplicatedTable> t : tables.entrySet()) {
      long persisted = t.getValue().checkpoint();
      if (persisted < last.getIndex()) {
        throw new IOException("shard " + shard + ": table " + t.getKey() + " persisted up to index " + persisted
            + " after a checkpoint at applied index " + last.getIndex());
      }
    }
    ShardSnapshotFile.write(stateDir, new ShardSnapshotFile.Stamp(last.getTerm(), last.getIndex()));
    latestSnapshot = new Snapshot(last);
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

  @Override
  public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(RoleInfoProto roleInfo, TermIndex firstTermIndexInLog) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("shard " + shard
        + ": installing a snapshot from the leader (first log index there " + firstTermIndexInLog
        + ") is not supported yet; see docs/cluster.md"));
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

  /** A snapshot: the tables' own files, stamped with (term, index); Ratis ships no file of it. */
  private record Snapshot(TermIndex getTermIndex) implements SnapshotInfo {
    @Override
    public List<FileInfo> getFiles() {
      return List.of();
    }
  }

  @Override
  public String toString() {
    return "ShardStateMachine(" + shard + ")";
  }
}
