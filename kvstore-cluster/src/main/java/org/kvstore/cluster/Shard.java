package org.kvstore.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.kvstore.Entry;
import org.kvstore.InvalidArgumentException;
import org.kvstore.codec.Keys;
import org.kvstore.OutcomeUnknownException;
import org.kvstore.cluster.codec.ShardEntry;
import org.kvstore.cluster.codec.ShardEntryFormat;
import org.kvstore.cluster.codec.ShardQuery;
import org.kvstore.cluster.codec.TableEffects;
import org.kvstore.cluster.shard.KeyLatches;
import org.kvstore.cluster.shard.ProposalBatcher;
import org.kvstore.cluster.shard.ShardStateMachine;
import org.kvstore.spi.Mutation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's handle on its replica of a shard: writes through Raft, linearizable reads.
 *
 * <ul>
 *   <li><b>Writes</b> run only on the shard's leader (elsewhere {@link NotLeaderException} names the
 *       leader, as a Redis Cluster node answers {@code -MOVED}). The leader latches the keys, builds
 *       the effects (for a read-modify-write from a linearizable read of the keys), proposes one
 *       entry in process and returns once a majority has it durably and the leader applied it; the
 *       latches are released only then. (Unless {@code ackBeforeCommit}, the unsafe mode of the
 *       fault tests' negative control: then a write returns once queued, version 0, and a failure
 *       of its entry is only logged.)
 *   <li><b>Reads</b> ({@link #get}, {@link #getEntry}) work on every replica: a Ratis
 *       {@code LINEARIZABLE} read (ReadIndex, with the leader lease) waits until every entry
 *       committed before the read started is applied on this replica, then reads its table.
 * </ul>
 *
 * <p>Thread safety: thread-safe. Calls block until Raft answers or the request timeout passes.
 */
public final class Shard {
  private static final Logger LOG = LoggerFactory.getLogger(Shard.class);
  private final ShardSpec spec;
  private final String nodeId;
  private final RaftServer server;
  private final RaftPeerId peerId;
  private final RaftGroupId groupId;
  private final long timeoutMillis;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  /** Linearizable reads (barriers and single reads) sent through Raft: {@link ShardStatus#readBarriers}. */
  private final AtomicLong readBarriers = new AtomicLong();
  private final KeyLatches latches = new KeyLatches();
  private final ShardStateMachine stateMachine;
  private static final long RETRY_MILLIS = 50;

  private final ProposalBatcher batcher;
  private final boolean ackBeforeCommit;
  private final long maxWriteBytes;

  Shard(ShardSpec spec, String nodeId, RaftServer server, RaftGroupId groupId, ShardStateMachine stateMachine,
      long timeoutMillis, java.time.Duration batchWait, java.util.concurrent.Executor proposers,
      boolean ackBeforeCommit, long maxWriteBytes) {
    this.spec = spec;
    this.maxWriteBytes = maxWriteBytes;
    this.ackBeforeCommit = ackBeforeCommit;
    this.stateMachine = stateMachine;
    this.batcher = new ProposalBatcher(
        entry -> send(RaftClientRequest.writeRequestType(), ShardEntryFormat.encode(entry)).getLogIndex(),
        proposers, timeoutMillis, batchWait);
    this.nodeId = nodeId;
    this.server = server;
    this.peerId = RaftPeerId.valueOf(nodeId);
    this.groupId = groupId;
    this.timeoutMillis = timeoutMillis;
  }

  public ShardSpec spec() {
    return spec;
  }

  // ---- writes ----

  /** Puts {@code value} under {@code key} without expiry. */
  public void put(String table, byte[] key, byte[] value) {
    write(table, List.of(Mutation.put(key.clone(), value.clone())));
  }

  /** Puts {@code value} under {@code key}, expiring at {@code expiresAt} (ms since the epoch). */
  public void put(String table, byte[] key, byte[] value, long expiresAt) {
    write(table, List.of(Mutation.put(key.clone(), value.clone(), expiresAt)));
  }

  /** Removes {@code key} (a no-op entry when absent). */
  public void remove(String table, byte[] key) {
    write(table, List.of(Mutation.remove(key.clone())));
  }

  /** Writes blind effects on one table as one entry; returns its Raft index, the entries' version. */
  public long write(String table, List<Mutation> mutations) {
    checkTable(table);
    List<byte[]> keys = new ArrayList<>(mutations.size());
    for (Mutation m : mutations) {
      keys.add(m.key());
    }
    int[] stripes = KeyLatches.stripesOf(table, keys);
    checkLeader();
    latches.lock(stripes);
    try {
      return propose(ShardEntry.of(table, mutations));
    } finally {
      latches.unlock(stripes);
    }
  }

  /**
   * As {@link #write}, without waiting, for a caller that must not block (an event loop): when this
   * node is the shard's ready leader and the latches of the keys are free now, proposes the
   * mutations and returns the future of their Raft index (failing as {@link #write} throws); the
   * latches are given back when it completes. Otherwise proposes nothing and returns null, and the
   * caller writes with {@link #write} where it may wait.
   */
  public CompletableFuture<Long> tryWriteAsync(String table, List<Mutation> mutations) {
    checkTable(table);
    List<byte[]> keys = new ArrayList<>(mutations.size());
    for (Mutation m : mutations) {
      keys.add(m.key());
    }
    int[] stripes = KeyLatches.stripesOf(table, keys);
    if (!isLeader() || !latches.tryLock(stripes)) {
      return null;
    }
    CompletableFuture<Long> index;
    try {
      ShardEntry entry = ShardEntry.of(table, mutations);
      checkSize(entry);
      index = batcher.proposeAsync(entry);
    } catch (RuntimeException e) {
      latches.unlock(stripes);
      throw e;
    }
    CompletableFuture<Long> written = index.whenComplete((i, e) -> latches.unlock(stripes));
    return ackBeforeCommit ? unacknowledged(written) : written;
  }

  /**
   * Atomic read-modify-write on the leader: reads the entries of {@code keys} (null for absent),
   * passes them to {@code effects}, and writes the mutations it returns (empty or null: nothing), as
   * one entry of effects. No other write of those keys through this leader runs in between, and
   * the read sees every write committed before it. Returns the entry's Raft index (the version of
   * what it wrote), or 0 when there was nothing to write.
   *
   * @throws InvalidArgumentException if the effects touch a key not among {@code keys}
   */
  public long update(String table, List<byte[]> keys, Function<Entry[], List<Mutation>> effects) {
    checkTable(table);
    int[] stripes = KeyLatches.stripesOf(table, keys);
    checkLeader();
    latches.lock(stripes);
    try {
      Entry[] current = getEntries(table, keys);
      List<Mutation> out = effects.apply(current);
      if (out == null || out.isEmpty()) {
        return 0;
      }
      checkReadKeys(keys, out);
      return propose(ShardEntry.of(table, out));
    } finally {
      latches.unlock(stripes);
    }
  }

  /**
   * Checks that {@code effects} write only keys among {@code keys}: directly for a few keys, through
   * a hash set for many (the expiry removes up to {@link ShardExpiry#REMOVE_BATCH} keys at once).
   */
  private static void checkReadKeys(List<byte[]> keys, List<Mutation> effects) {
    Set<ByteBuffer> read = null;
    if (keys.size() > 8) {
      read = new HashSet<>(keys.size() * 2);
      for (byte[] k : keys) {
        read.add(ByteBuffer.wrap(k));
      }
    }
    for (Mutation m : effects) {
      boolean found = read != null ? read.contains(ByteBuffer.wrap(m.key()))
          : keys.stream().anyMatch(k -> java.util.Arrays.equals(k, m.key()));
      if (!found) {
        throw new InvalidArgumentException("effects", "write a key that was not read");
      }
    }
  }

  /**
   * Redis' {@code APPEND}: appends {@code suffix} to the value of {@code key} (an absent key counts
   * as empty), keeping its expiry; returns the new length. Evaluated on the leader and logged as a
   * put of the result, so replaying the entry cannot append twice.
   */
  public int append(String table, byte[] key, byte[] suffix) {
    int[] length = new int[1];
    byte[] k = key.clone();
    update(table, List.of(k), current -> {
      byte[] before = current[0] == null ? new byte[0] : current[0].value();
      byte[] after = java.util.Arrays.copyOf(before, before.length + suffix.length);
      System.arraycopy(suffix, 0, after, before.length, suffix.length);
      length[0] = after.length;
      long expiresAt = current[0] == null ? Entry.NO_EXPIRY : current[0].expiresAt();
      return List.of(Mutation.put(k, after, expiresAt));
    });
    return length[0];
  }

  // ---- reads ----

  /** The value of {@code key}, or {@code null}; linearizable. */
  public byte[] get(String table, byte[] key) {
    Entry e = getEntry(table, key);
    return e == null ? null : e.value();
  }

  /** The entry of {@code key} with its version (the Raft index that wrote it) and expiry; linearizable. */
  public Entry getEntry(String table, byte[] key) {
    checkTable(table);
    RaftClientReply reply = send(RaftClientRequest.readRequestType(),
        ShardQuery.get(table, key).encode());
    return ShardQuery.decodeEntry(reply.getMessage().getContent().toByteArray());
  }

  /**
   * The entries of {@code keys} (null where absent or expired), linearizable as a whole: one read
   * barrier, then this replica's table.
   */
  public Entry[] getEntries(String table, List<byte[]> keys) {
    checkTable(table);
    readBarrier();
    try {
      return readLocal(stateMachine.table(table), keys);
    } catch (org.kvstore.StoreClosedException replaced) {
      // An installed snapshot replaced the table after the barrier; its copy holds at least what the
      // barrier waited for, so reading it instead is still linearizable.
      return readLocal(stateMachine.table(table), keys);
    }
  }

  private static Entry[] readLocal(org.kvstore.Table local, List<byte[]> keys) {
    Entry[] out = new Entry[keys.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = local.getEntry(keys.get(i));
    }
    return out;
  }

  /**
   * This replica's read handle on the shard's table {@code table}: it shows what the replica has
   * applied; call {@link #readBarrier} first for a linearizable read.
   */
  public org.kvstore.Table localTable(String table) {
    checkTable(table);
    return stateMachine.table(table);
  }

  /** This replica's shard table {@code table} as the state machine applies it (for the expiry's walk). */
  org.kvstore.ReplicatedTable replicatedTable(String table) {
    checkTable(table);
    return stateMachine.replicatedTable(table);
  }

  /**
   * A read barrier: returns once every entry committed before the call is applied on this replica,
   * after which the tables may be read directly (SCALEOUT.md §5).
   */
  public void readBarrier() {
    send(RaftClientRequest.readRequestType(), ShardQuery.barrier().encode());
  }

  // ---- state ----

  /**
   * Whether this node currently leads the shard and is ready to serve: it has committed an entry of
   * its term, so its state has every entry committed before it took over.
   */
  public boolean isLeader() {
    org.apache.ratis.server.DivisionInfo info = division().getInfo();
    return info.isLeader() && info.isLeaderReady();
  }

  /** The leader's node id as this node knows it, or {@code null}. */
  public String leaderId() {
    RaftPeerId id = division().getInfo().getLeaderId();
    return id == null ? null : id.toString();
  }

  /** This replica's current Raft term. */
  public long term() {
    return division().getInfo().getCurrentTerm();
  }

  /** This replica's role, term, commit and applied index, and on the leader the followers' lag. */
  public ShardStatus status() {
    RaftServer.Division d = division();
    org.apache.ratis.server.DivisionInfo info = d.getInfo();
    long commit = d.getRaftLog().getLastCommittedIndex();
    Map<String, Long> lag = new TreeMap<>();
    if (info.isLeader()) {
      for (CommitInfoProto c : d.getCommitInfos()) {
        String peer = c.getServer().getId().toStringUtf8();
        if (!peer.equals(nodeId)) {
          lag.put(peer, Math.max(0, commit - c.getCommitIndex()));
        }
      }
    }
    RaftPeerId leader = info.getLeaderId();
    return new ShardStatus(spec.name(), info.getCurrentRole().name().toLowerCase(Locale.ROOT),
        info.getCurrentTerm(), leader == null ? null : leader.toString(), commit, info.getLastAppliedIndex(), lag,
        readBarriers.get());
  }

  /** This replica's last applied Raft index. */
  public long appliedIndex() {
    return division().getInfo().getLastAppliedIndex();
  }

  private void checkLeader() {
    if (!isLeader()) {
      throw new NotLeaderException(spec.name(), nodeId, leaderId());
    }
  }

  private void checkTable(String table) {
    if (!spec.tables().contains(table)) {
      throw new InvalidArgumentException("table", "shard " + spec.name() + " has no table " + table
          + " (tables: " + spec.tables() + ")");
    }
  }

  /**
   * Proposes {@code entry}, merged with the entries other writers propose meanwhile ({@link
   * ProposalBatcher}), and returns its Raft index once the leader applied it.
   */
  private long propose(ShardEntry entry) {
    for (TableEffects t : entry.tables()) {
      checkTable(t.table());
    }
    checkSize(entry);
    if (ackBeforeCommit) {
      return unacknowledged(batcher.proposeAsync(entry)).join();
    }
    return batcher.propose(entry);
  }

  /** Refuses a write larger than one Raft entry may be, before anything is proposed. */
  private void checkSize(ShardEntry entry) {
    long bytes = ProposalBatcher.bytesOf(entry);
    if (bytes > maxWriteBytes) {
      TableEffects first = entry.tables().get(0);
      byte[] key = first.mutations().get(0).key();
      int keys = entry.tables().stream().mapToInt(t -> t.mutations().size()).sum();
      throw new InvalidArgumentException("value", "the write of key " + Keys.printable(key)
          + (keys > 1 ? " and " + (keys - 1) + " more" : "") + " to table " + first.table() + " of shard "
          + spec.name() + " is " + bytes + " bytes of keys and values, above the cluster's largest write of "
          + maxWriteBytes + " bytes (cluster-max-write-size)");
    }
  }

  /**
   * The unsafe answer of {@code ackBeforeCommit}: version 0 at once, while the entry may still
   * fail (then it is lost, and only logged).
   */
  private CompletableFuture<Long> unacknowledged(CompletableFuture<Long> proposed) {
    proposed.whenComplete((index, e) -> {
      if (e != null) {
        LOG.warn("shard {} on node {}: a write answered before its commit failed, so it is lost: {}", spec.name(),
            nodeId, e.toString());
      }
    });
    return CompletableFuture.completedFuture(0L);
  }

  private RaftServer.Division division() {
    try {
      return server.getDivision(groupId);
    } catch (IOException e) {
      throw new ClusterException("node " + nodeId + " has no replica of shard " + spec.name(), e);
    }
  }

  private RaftClientReply send(RaftClientRequest.Type type, byte[] payload) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    Message message = Message.valueOf(ByteString.copyFrom(payload));
    boolean read = !type.is(RaftClientRequestProto.TypeCase.WRITE);
    if (read) {
      readBarriers.incrementAndGet();
    }
    while (true) {
      RaftClientReply reply;
      try {
        reply = sendOnce(type, message, deadline);
      } catch (ClusterException e) {
        // A read changes nothing, so any failure (the leader it asked died, a timeout) may be
        // retried within the deadline; a write's failure is final.
        if (!read || System.nanoTime() > deadline) {
          throw e;
        }
        pause();
        continue;
      }
      if (reply.isSuccess()) {
        return reply;
      }
      RaftException e = reply.getException();
      if (reply.getNotLeaderException() != null) {
        RaftPeerId leader = reply.getNotLeaderException().getSuggestedLeader() == null ? null
            : reply.getNotLeaderException().getSuggestedLeader().getId();
        String suggested = leader == null ? null : leader.toString();
        if (type.is(RaftClientRequestProto.TypeCase.WRITE)) {
          // A leader that steps down answers its pending writes so, but it may have replicated
          // them, and the next leader may commit them: the write must not be sent again.
          throw OutcomeUnknownException.withMessage("outcome unknown: node " + nodeId + " lost the lead of shard "
              + spec.name() + " while the write was pending"
              + (suggested == null ? "" : " (the new leader is " + suggested + ")")
              + "; it may still be committed: read the key to learn whether it was", e);
        }
        throw new NotLeaderException(spec.name(), nodeId, suggested);
      }
      // A new leader that has not committed its first entry, or a replica that knows no leader yet
      // (an election): nothing was proposed, so wait a moment and ask again, within the timeout.
      boolean electing = reply.getLeaderNotReadyException() != null || reply.getReadIndexException() != null
          || reply.getReadException() != null;
      if (!(electing || read) || System.nanoTime() > deadline) {
        throw new ClusterException("shard " + spec.name() + " on node " + nodeId + ": " + e, e);
      }
      pause();
    }
  }

  private void pause() {
    try {
      Thread.sleep(RETRY_MILLIS);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted waiting for shard " + spec.name(), ie);
    }
  }

  private RaftClientReply sendOnce(RaftClientRequest.Type type, Message message, long deadline) {
    long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    RaftClientRequest request = RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(peerId)
        .setGroupId(groupId)
        .setCallId(callIds.incrementAndGet())
        .setMessage(message)
        .setType(type)
        .setTimeoutMs(left)
        .build();
    try {
      return server.submitClientRequestAsync(request).get(left, TimeUnit.MILLISECONDS);
    } catch (IOException e) {
      throw new ClusterException("shard " + spec.name() + " on node " + nodeId + ": request failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted waiting for shard " + spec.name(), e);
    } catch (ExecutionException e) {
      throw new ClusterException("shard " + spec.name() + " on node " + nodeId + ": request failed", e.getCause());
    } catch (TimeoutException e) {
      String what = "shard " + spec.name() + " on node " + nodeId + ": no answer within " + timeoutMillis + " ms";
      if (type.is(RaftClientRequestProto.TypeCase.WRITE)) {
        throw OutcomeUnknownException.withMessage("outcome unknown: " + what + "; the write may still be committed", e);
      }
      throw new ClusterException(what, e);
    }
  }
}
