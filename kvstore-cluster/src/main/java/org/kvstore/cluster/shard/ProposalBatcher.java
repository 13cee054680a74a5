package org.kvstore.cluster.shard;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.kvstore.KVStoreException;
import org.kvstore.OutcomeUnknownException;
import org.kvstore.cluster.ClusterException;
import org.kvstore.cluster.codec.ShardEntry;
import org.kvstore.cluster.codec.TableEffects;
import org.kvstore.spi.Mutation;

/**
 * Group commit for a shard's leader: the entries that writers propose while earlier ones are in
 * flight are merged into one Raft entry, so that a shard under many concurrent writers pays the
 * consensus round (log append, replication, fsyncs, the reply) once per batch rather than once per
 * write. At most {@link #MAX_IN_FLIGHT} batches are in flight; each holds at most about
 * {@link #MAX_BATCH_BYTES} of keys and values (a larger entry goes alone).
 *
 * <p>Merging is sound because the writers of one batch write distinct keys: every writer holds the
 * latches of its keys until its entry is applied ({@link KeyLatches}), so two writes of one key
 * never wait in the same batch. Each writer learns the batch's Raft index (the version of what it
 * wrote) or the batch's failure.
 *
 * <p>Thread safety: thread-safe; {@link #propose} blocks its caller until the batch is applied.
 */
public final class ProposalBatcher {
  static final int MAX_IN_FLIGHT = 1;
  static final long MAX_BATCH_BYTES = 1 << 20;

  /** One writer's entry and the future of its batch's Raft index. */
  private record Pending(ShardEntry entry, long bytes, CompletableFuture<Long> index) {}

  private final Object lock = new Object();
  @GuardedBy("lock")
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  @GuardedBy("lock")
  private int inFlight;
  private final Function<ShardEntry, Long> send;
  private final Executor executor;
  private final long timeoutMillis;

  /**
   * @param send proposes one (merged) entry and returns its Raft index once applied; may block
   * @param executor runs {@code send} for each batch
   * @param timeoutMillis how long a writer waits for its batch before its outcome is unknown
   */
  public ProposalBatcher(Function<ShardEntry, Long> send, Executor executor, long timeoutMillis) {
    this.send = send;
    this.executor = executor;
    this.timeoutMillis = timeoutMillis;
  }

  /** Proposes {@code entry} with whatever else waits, and returns the Raft index it was applied at. */
  public long propose(ShardEntry entry) {
    Pending p = new Pending(entry, bytesOf(entry), new CompletableFuture<>());
    List<Pending> batch = null;
    synchronized (lock) {
      queue.add(p);
      if (inFlight < MAX_IN_FLIGHT) {
        inFlight++;
        batch = drainLocked();
      }
    }
    if (batch != null) {
      submit(batch);
    }
    try {
      return p.index().get(timeoutMillis + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof KVStoreException k) {
        throw k;
      }
      throw new ClusterException("proposing a write failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw OutcomeUnknownException.withMessage("outcome unknown: no answer within " + timeoutMillis
          + " ms; the write may still be committed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw OutcomeUnknownException.withMessage("outcome unknown: interrupted while the write was pending", e);
    }
  }

  private static long bytesOf(ShardEntry entry) {
    long n = 0;
    for (TableEffects t : entry.tables()) {
      for (Mutation m : t.mutations()) {
        n += m.key().length + (m.value() == null ? 0 : m.value().length) + 16;
      }
    }
    return n;
  }

  @GuardedBy("lock")
  private List<Pending> drainLocked() {
    assert Thread.holdsLock(lock);
    List<Pending> batch = new ArrayList<>();
    long bytes = 0;
    while (!queue.isEmpty() && (batch.isEmpty() || bytes + queue.peek().bytes() <= MAX_BATCH_BYTES)) {
      Pending p = queue.poll();
      bytes += p.bytes();
      batch.add(p);
    }
    return batch;
  }

  private void submit(List<Pending> batch) {
    try {
      executor.execute(() -> run(batch));
    } catch (RuntimeException rejected) {
      fail(batch, new ClusterException("the shard is closing", rejected));
      next();
    }
  }

  private void run(List<Pending> batch) {
    try {
      long index = send.apply(merge(batch));
      for (Pending p : batch) {
        p.index().complete(index);
      }
    } catch (RuntimeException e) {
      fail(batch, e);
    } finally {
      next();
    }
  }

  /** Sends what queued meanwhile, or lowers the in-flight count. */
  private void next() {
    List<Pending> batch;
    synchronized (lock) {
      if (queue.isEmpty()) {
        inFlight--;
        return;
      }
      batch = drainLocked();
    }
    submit(batch);
  }

  private static void fail(List<Pending> batch, RuntimeException e) {
    for (Pending p : batch) {
      p.index().completeExceptionally(e);
    }
  }

  /** One entry with the batch's effects, per table in the order they were proposed. */
  static ShardEntry merge(List<Pending> batch) {
    if (batch.size() == 1) {
      return batch.get(0).entry();
    }
    Map<String, List<Mutation>> byTable = new LinkedHashMap<>();
    for (Pending p : batch) {
      for (TableEffects t : p.entry().tables()) {
        byTable.computeIfAbsent(t.table(), k -> new ArrayList<>()).addAll(t.mutations());
      }
    }
    List<TableEffects> tables = new ArrayList<>(byTable.size());
    for (Map.Entry<String, List<Mutation>> e : byTable.entrySet()) {
      tables.add(new TableEffects(e.getKey(), e.getValue()));
    }
    return new ShardEntry(tables);
  }
}
