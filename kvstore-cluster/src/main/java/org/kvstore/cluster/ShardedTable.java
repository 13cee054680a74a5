package org.kvstore.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.kvstore.Cursor;
import org.kvstore.Durability;
import org.kvstore.Entry;
import org.kvstore.InvalidArgumentException;
import org.kvstore.Precondition;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.TableInfo;
import org.kvstore.WriteBatch;
import org.kvstore.WriteResult;
import org.kvstore.cluster.slots.HashSlot;
import org.kvstore.spi.Mutation;
import org.kvstore.spi.SingleKeyWrites;

/**
 * One table of every shard of a cluster, seen from one node as one {@link Table}, so that the
 * server's command layer runs unchanged on a cluster: each key goes to the shard that owns its hash
 * slot ({@link ClusterLayout#shardOfKey}).
 *
 * <ul>
 *   <li><b>Writes</b> run on the shard's leader ({@link Shard#write}, {@link Shard#update}). On a
 *       node that does not lead the shard they throw {@link SlotMovedException} naming the leader.
 *       While the shard elects a leader (none known, or this node elected and not yet ready), a
 *       write waits up to the election wait for one, then is redirected to it; with none by then it
 *       throws {@link ClusterDownException}. A batch or read-modify-write whose keys lie in several
 *       shards throws {@link CrossSlotException}: only one shard's keys are written atomically.
 *   <li><b>Reads</b> are linearizable on any replica (one read barrier per call, then the local
 *       table); {@link #multiGetReadOnly} takes one barrier per shard.
 *   <li><b>Scans</b> ({@link #scan}, and what counts keys) cover the shards this node leads, as a
 *       Redis Cluster node's {@code KEYS}, {@code SCAN} and {@code DBSIZE} cover its own slots.
 *   <li>Versions are Raft indexes of the key's shard; expiry times are resolved on the leader with
 *       the store's clock and logged as absolute times.
 * </ul>
 *
 * <p>Thread safety: thread-safe; calls block until Raft answers (run them off event loops).
 */
public final class ShardedTable implements Table {
  /** The name {@link #database()} gives: the table spans the shard databases of the node's store. */
  public static final String DATABASE = "cluster";
  private static final long POLL_MILLIS = 10;

  private final ClusterNode node;
  private final ClusterLayout layout;
  private final String table;
  private final Clock clock;
  private final long electionWaitNanos;
  private final Function<String, String> endpoints;

  private final boolean staleReplicaReads;

  /** A table without client addresses: redirects name the serving node only. */
  public ShardedTable(ClusterNode node, String table, Duration electionWait) {
    this(node, table, electionWait, id -> null, false);
  }

  /**
   * @param table a table of every shard ({@link ClusterLayout#tables()})
   * @param electionWait how long a write waits for a shard without a leader before {@link
   *     ClusterDownException}: about one election timeout
   * @param endpoints each node's client address ({@code host:port}) by node id, which redirects
   *     carry ({@link SlotMovedException#endpoint()})
   * @param staleReplicaReads whether {@link #getStale} on a replica that does not lead skips the
   *     read barrier (as a Redis replica answers READONLY reads from what it has), instead of a
   *     linearizable read
   */
  public ShardedTable(ClusterNode node, String table, Duration electionWait, Function<String, String> endpoints,
      boolean staleReplicaReads) {
    if (!node.layout().tables().contains(table)) {
      throw new InvalidArgumentException("table", "the cluster's shards have no table " + table
          + " (tables: " + node.layout().tables() + ")");
    }
    this.node = node;
    this.layout = node.layout();
    this.table = table;
    this.clock = node.store().options().clock();
    this.electionWaitNanos = electionWait.toNanos();
    this.endpoints = endpoints;
    this.staleReplicaReads = staleReplicaReads;
  }

  private SlotMovedException moved(int slot, String shard, String nodeId) {
    return new SlotMovedException(slot, shard, nodeId, endpoints.apply(nodeId));
  }

  @Override
  public String database() {
    return DATABASE;
  }

  @Override
  public String name() {
    return table;
  }

  // ---- routing ----

  /**
   * The slot every key of {@code keys} hashes to.
   *
   * @throws CrossSlotException if they hash to different slots
   */
  public static int commonSlot(List<byte[]> keys) {
    int slot = -1;
    for (byte[] k : keys) {
      int s = HashSlot.of(k);
      if (slot >= 0 && s != slot) {
        throw new CrossSlotException("keys in one request hash to different slots (" + slot + " and " + s
            + "); a hash tag such as {user1} in each key puts them in one slot");
      }
      slot = s;
    }
    return slot;
  }

  /** The index of the shard that owns {@code key} (in the layout's order), wherever it is led. */
  public int shardOfKey(byte[] key) {
    return layout.shardOfKey(key);
  }

  /** The shard all of {@code keys} belong to. @throws CrossSlotException if they span shards */
  private int commonShard(List<byte[]> keys) {
    if (keys.isEmpty()) {
      throw new InvalidArgumentException("keys", "must not be empty");
    }
    int shard = -1;
    for (byte[] k : keys) {
      checkKey(k);
      int s = layout.shardOfKey(k);
      if (shard >= 0 && s != shard) {
        throw new CrossSlotException("keys of one atomic write lie in different shards (" + layout.shard(shard).name()
            + " and " + layout.shard(s).name() + "); a hash tag such as {user1} in each key puts them in one slot");
      }
      shard = s;
    }
    return shard;
  }

  /**
   * Returns once this node leads the shard that owns {@code slot} and is ready to serve it, waiting
   * through an election.
   *
   * @throws SlotMovedException if another node leads it
   * @throws ClusterDownException if no leader was known by the end of the election wait
   */
  public Shard leaderOf(int slot) {
    int i = layout.shardOf(slot);
    String name = layout.shard(i).name();
    if (!node.shardIndexes().contains(i)) {
      throw moved(slot, name, layout.replicas(i).get(0));
    }
    Shard s = node.shard(i);
    long deadline = System.nanoTime() + electionWaitNanos;
    while (true) {
      if (s.isLeader()) {
        return s;
      }
      String leader = s.leaderId();
      if (leader != null && !leader.equals(node.nodeId())) {
        throw moved(slot, name, leader);
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new ClusterDownException(slot, name, leader == null
            ? "no leader known after " + TimeUnit.NANOSECONDS.toMillis(electionWaitNanos) + " ms"
            : "node " + leader + " was elected but has not committed its first entry yet");
      }
      pause();
    }
  }

  /**
   * As {@link #write(WriteBatch)} for a batch of blind puts and removes of one shard, without
   * waiting, for a caller that must not block (an event loop): when this node is the ready leader
   * of the batch's shard and the keys' latches are free now, returns the future of the write (it
   * fails with what {@link #write(WriteBatch)} would throw once proposed); else writes nothing and
   * returns null, and the caller writes with {@link #write(WriteBatch)} where it may wait (which
   * follows an election or answers MOVED).
   *
   * @throws InvalidArgumentException for a batch {@link #write(WriteBatch)} refuses at once
   */
  public CompletableFuture<Void> tryWriteAsync(WriteBatch batch) {
    if (batch == null || batch.isEmpty() || batch.readsCurrent()) {
      return null;
    }
    List<byte[]> keys = new ArrayList<>(batch.size());
    for (Mutation m : batch.mutations()) {
      keys.add(m.key());
    }
    int i = commonShard(keys);
    if (!node.shardIndexes().contains(i)) {
      return null;
    }
    Shard s = node.shard(i);
    if (!s.isLeader()) {
      return null;
    }
    CompletableFuture<Long> index = s.tryWriteAsync(table, resolve(batch, keys, null));
    return index == null ? null : index.thenApply(v -> null);
  }

  /** Runs {@code op} on the leader of {@code slot}'s shard, following a leader change before it proposed. */
  private <T> T onLeader(int slot, Function<Shard, T> op) {
    long deadline = System.nanoTime() + electionWaitNanos;
    while (true) {
      Shard s = leaderOf(slot);
      try {
        return op.apply(s);
      } catch (NotLeaderException e) {
        // Thrown before anything was proposed (Shard checks the lead first; a lead lost while a
        // write was pending is an OutcomeUnknownException instead): nothing was written.
        String leader = e.leaderId();
        if (leader != null && !leader.equals(node.nodeId())) {
          throw moved(slot, s.spec().name(), leader);
        }
        if (System.nanoTime() - deadline >= 0) {
          throw new ClusterDownException(slot, s.spec().name(), e.getMessage());
        }
        pause();
      }
    }
  }

  /** Whether this node has a replica of the shard that owns {@code slot} (and may serve its reads). */
  public boolean hasReplicaOf(int slot) {
    return node.shardIndexes().contains(layout.shardOf(slot));
  }

  /** This node's replica of the shard of {@code slot}, for a read. */
  private Shard replicaOf(int slot) {
    int i = layout.shardOf(slot);
    if (!node.shardIndexes().contains(i)) {
      throw moved(slot, layout.shard(i).name(), layout.replicas(i).get(0));
    }
    return node.shard(i);
  }

  private static void pause() {
    try {
      Thread.sleep(POLL_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted while waiting for a shard leader", e);
    }
  }

  private static int slotOf(byte[] key) {
    checkKey(key);
    return HashSlot.of(key);
  }

  private static void checkKey(byte[] key) {
    if (key == null || key.length == 0) {
      throw new InvalidArgumentException("key", key == null ? "must not be null" : "must not be empty");
    }
  }

  // ---- reads ----

  @Override
  public byte[] get(byte[] key) {
    Entry e = getEntry(key);
    return e == null ? null : e.value();
  }

  @Override
  public Entry getEntry(byte[] key) {
    return replicaOf(slotOf(key)).getEntries(table, List.of(key))[0];
  }

  /**
   * A read for a client that asked to read from replicas ({@code READONLY}): linearizable, as
   * {@link #getEntry}, unless the table was made with stale replica reads and this node does not
   * lead the key's shard: then this replica's applied state, which may miss the latest writes.
   */
  public Entry getStale(byte[] key) {
    Shard s = replicaOf(slotOf(key));
    if (staleReplicaReads && !s.isLeader()) {
      return s.localTable(table).getEntry(key);
    }
    return s.getEntries(table, List.of(key))[0];
  }

  /** Whether replica reads ({@link #getStale}) may return stale values. */
  public boolean staleReplicaReads() {
    return staleReplicaReads;
  }

  @Override
  public void multiGetReadOnly(byte[][] keys, byte[][] values) {
    if (keys.length != values.length) {
      throw new InvalidArgumentException("values",
          "must have one slot per key: " + keys.length + " keys but " + values.length + " slots");
    }
    Map<Integer, List<Integer>> byShard = new LinkedHashMap<>();
    for (int i = 0; i < keys.length; i++) {
      checkKey(keys[i]);
      byShard.computeIfAbsent(layout.shardOfKey(keys[i]), s -> new ArrayList<>()).add(i);
    }
    for (List<Integer> positions : byShard.values()) {
      List<byte[]> group = new ArrayList<>(positions.size());
      for (int p : positions) {
        group.add(keys[p]);
      }
      Entry[] found = replicaOf(HashSlot.of(group.get(0))).getEntries(table, group);
      for (int j = 0; j < found.length; j++) {
        values[positions.get(j)] = found[j] == null ? null : found[j].value();
      }
    }
  }

  /**
   * The entries in {@code [from, to)} of the shards this node leads (after a read barrier on each),
   * merged in key order.
   */
  @Override
  public Cursor scan(byte[] fromInclusive, byte[] toExclusive, int limit) {
    List<Cursor> parts = new ArrayList<>();
    try {
      for (int i : node.shardIndexes()) {
        Shard s = node.shard(i);
        if (s.isLeader()) {
          s.readBarrier();
          parts.add(s.localTable(table).scan(fromInclusive, toExclusive, limit));
        }
      }
    } catch (RuntimeException e) {
      for (Cursor c : parts) {
        c.close();
      }
      throw e;
    }
    return new MergingCursor(parts, limit);
  }

  // ---- writes ----

  @Override
  public void put(byte[] key, byte[] value) {
    put(key, value, PutOptions.defaults());
  }

  @Override
  public WriteResult put(byte[] key, byte[] value, PutOptions options) {
    if (value == null || options == null) {
      throw new InvalidArgumentException(value == null ? "value" : "options", "must not be null");
    }
    byte[] k = key == null ? null : key.clone();
    byte[] v = value.clone();
    int slot = slotOf(k);
    if (!options.readsCurrent()) {
      long version = onLeader(slot, s -> s.write(table, SingleKeyWrites.put(k, v, options, null, clock.millis())));
      return new WriteResult(true, version, null);
    }
    Entry[] found = new Entry[1];
    long version = onLeader(slot, s -> s.update(table, List.of(k), current -> {
      found[0] = current[0];
      return SingleKeyWrites.put(k, v, options, current[0], clock.millis());
    }));
    return SingleKeyWrites.result(version, found[0], false);
  }

  @Override
  public boolean remove(byte[] key) {
    return remove(key, Precondition.none()).applied();
  }

  @Override
  public WriteResult remove(byte[] key, Precondition precondition) {
    if (precondition == null) {
      throw new InvalidArgumentException("precondition", "must not be null");
    }
    byte[] k = key == null ? null : key.clone();
    Entry[] found = new Entry[1];
    long version = onLeader(slotOf(k), s -> s.update(table, List.of(k), current -> {
      found[0] = current[0];
      return SingleKeyWrites.remove(k, precondition, current[0]);
    }));
    return SingleKeyWrites.result(version, found[0], true);
  }

  @Override
  public boolean expireAt(byte[] key, long epochMillis) {
    SingleKeyWrites.checkExpireAt(epochMillis);
    byte[] k = key == null ? null : key.clone();
    return onLeader(slotOf(k), s -> s.update(table, List.of(k),
        current -> SingleKeyWrites.expireAt(k, epochMillis, current[0], clock.millis()))) != 0;
  }

  @Override
  public boolean persist(byte[] key) {
    byte[] k = key == null ? null : key.clone();
    return onLeader(slotOf(k), s -> s.update(table, List.of(k), current -> SingleKeyWrites.persist(k, current[0]))) != 0;
  }

  @Override
  public void updateEntries(List<byte[]> keys, Function<Entry[], WriteBatch> update) {
    if (keys == null || update == null) {
      throw new InvalidArgumentException(keys == null ? "keys" : "update", "must not be null");
    }
    List<byte[]> copies = new ArrayList<>(keys.size());
    for (byte[] k : keys) {
      checkKey(k);
      copies.add(k.clone());
    }
    commonShard(copies);
    onLeader(HashSlot.of(copies.get(0)), s -> s.update(table, copies, current -> {
      WriteBatch batch = update.apply(current);
      if (batch == null || batch.isEmpty()) {
        return null;
      }
      return resolve(batch, copies, current);
    }));
  }

  @Override
  public void update(List<byte[]> keys, Function<byte[][], WriteBatch> update) {
    if (update == null) {
      throw new InvalidArgumentException("update", "must not be null");
    }
    updateEntries(keys, entries -> {
      byte[][] values = new byte[entries.length][];
      for (int i = 0; i < entries.length; i++) {
        values[i] = entries[i] == null ? null : entries[i].value();
      }
      return update.apply(values);
    });
  }

  @Override
  public void write(WriteBatch batch) {
    if (batch == null) {
      throw new InvalidArgumentException("batch", "must not be null");
    }
    if (batch.isEmpty()) {
      return;
    }
    List<byte[]> keys = new ArrayList<>(batch.size());
    for (Mutation m : batch.mutations()) {
      keys.add(m.key());
    }
    commonShard(keys);
    int slot = HashSlot.of(keys.get(0));
    if (batch.readsCurrent()) {
      onLeader(slot, s -> s.update(table, keys, current -> resolve(batch, keys, current)));
    } else {
      List<Mutation> mutations = resolve(batch, keys, null);
      onLeader(slot, s -> s.write(table, mutations));
    }
  }

  /**
   * Removes each of {@code keys} (absent ones are no-ops), with one Raft entry per shard: atomic
   * within a shard, not across shards. For clearing the keyspace ({@code FLUSHDB}), where Redis
   * Cluster too removes each node's keys on its own.
   */
  public void removeEach(List<byte[]> keys) {
    Map<Integer, List<Mutation>> byShard = new LinkedHashMap<>();
    for (byte[] k : keys) {
      checkKey(k);
      byShard.computeIfAbsent(layout.shardOfKey(k), s -> new ArrayList<>()).add(Mutation.remove(k.clone()));
    }
    for (List<Mutation> removes : byShard.values()) {
      onLeader(HashSlot.of(removes.get(0).key()), s -> s.write(table, removes));
    }
  }

  /** The batch's mutations with preconditions checked against {@code current} (entries of {@code keys}). */
  private List<Mutation> resolve(WriteBatch batch, List<byte[]> keys, Entry[] current) {
    try {
      return batch.resolve(DATABASE + "/" + table, clock.millis(), current == null ? null : key -> {
        for (int i = 0; i < keys.size(); i++) {
          if (Arrays.equals(keys.get(i), key)) {
            return current[i];
          }
        }
        throw new InvalidArgumentException("batch", "writes a key that was not read");
      });
    } catch (IOException e) {
      throw new IllegalStateException("resolving a batch against entries already read cannot do I/O", e);
    }
  }

  // ---- table ----

  /**
   * The table as this node holds it: the sum of its replicas' entries and bytes, durability
   * {@code sync} (a write is acknowledged once a majority has it on disk).
   */
  @Override
  public TableInfo info() {
    long entries = 0;
    long bytes = 0;
    for (int i : node.shardIndexes()) {
      TableInfo t = node.shard(i).localTable(table).info();
      entries += t.entryEstimate();
      bytes += t.bytesOnDisk();
    }
    Path dir = node.store().directory();
    return new TableInfo(DATABASE, table, 0, layout.engine(), Map.of("shards", Integer.toString(layout.shardCount())),
        Durability.SYNC, entries, bytes, dir, Map.of());
  }

  /** Snapshots every shard this node leads ({@link ClusterNode#takeSnapshot}). */
  @Override
  public void flush() {
    for (int i : node.shardIndexes()) {
      if (node.shard(i).isLeader()) {
        node.takeSnapshot(i);
      }
    }
  }

  @Override
  public String toString() {
    return "ShardedTable(" + table + " over " + layout.shardCount() + " shards, node " + node.nodeId() + ")";
  }
}
