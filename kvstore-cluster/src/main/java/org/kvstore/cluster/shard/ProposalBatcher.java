package org.kvstore.cluster.shard;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
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
 * <p>When a batch is answered and writers are queued, the next batch waits (at most the batch
 * wait, {@code cluster-batch-wait}) until as many writers are queued as the answered batch and the
 * queue held together: clients that wait for each reply before their next write come back within a
 * round trip, and the consensus round costs far more CPU per entry than per write, so one entry for
 * all of them is cheaper than two. A lone writer never waits (nothing is queued when its batch is
 * answered); a burst that does not come back costs at most the batch wait.
 *
 * <p>Merging is sound because the writers of one batch write distinct keys: every writer holds the
 * latches of its keys until its entry is applied ({@link KeyLatches}), so two writes of one key
 * never wait in the same batch. Each writer learns the batch's Raft index (the version of what it
 * wrote) or the batch's failure.
 *
 * <p>Thread safety: thread-safe; {@link #propose} blocks its caller until the batch is applied,
 * {@link #proposeAsync} does not.
 */
public final class ProposalBatcher {
  static final int MAX_IN_FLIGHT = 1;
  static final long MAX_BATCH_BYTES = 1 << 20;
  /** What {@link #bytesOf} counts per key beyond its key and value bytes (kind, expiry, lengths). */
  public static final int MUTATION_OVERHEAD = 16;

  /** One writer's entry and the future of its batch's Raft index. */
  private record Pending(ShardEntry entry, long bytes, CompletableFuture<Long> index) {}

  private final Object lock = new Object();
  @GuardedBy("lock")
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  @GuardedBy("lock")
  private int inFlight;
  /** The bytes of the queued writers' entries. */
  @GuardedBy("lock")
  private long queuedBytes;
  /** How many queued writers the waiting {@link #next} waits for; 0 while none waits. */
  @GuardedBy("lock")
  private int awaited;
  private final Function<ShardEntry, Long> send;
  private final Executor executor;
  private final long timeoutMillis;
  private final long batchWaitNanos;

  /**
   * @param send proposes one (merged) entry and returns its Raft index once applied; may block
   * @param executor runs {@code send} for each batch
   * @param timeoutMillis how long a writer waits for its batch before its outcome is unknown
   * @param batchWait at most how long a batch waits for the writers expected back (see the class
   *     comment); zero sends whatever is queued at once
   */
  public ProposalBatcher(Function<ShardEntry, Long> send, Executor executor, long timeoutMillis, Duration batchWait) {
    this.send = send;
    this.executor = executor;
    this.timeoutMillis = timeoutMillis;
    this.batchWaitNanos = batchWait.toNanos();
  }

  /** Proposes {@code entry} with whatever else waits, and returns the Raft index it was applied at. */
  public long propose(ShardEntry entry) {
    CompletableFuture<Long> index = enqueue(entry);
    try {
      return index.get(timeoutMillis + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    } catch (TimeoutException e) {
      throw timedOut(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw OutcomeUnknownException.withMessage("outcome unknown: interrupted while the write was pending", e);
    }
  }

  /**
   * As {@link #propose}, without waiting: the future completes with the Raft index once the batch
   * is applied, or fails with the {@link KVStoreException} {@link #propose} would throw (an unknown
   * outcome when no answer came in time). It completes on the thread that sent the batch, so what
   * depends on it must not block.
   */
  public CompletableFuture<Long> proposeAsync(ShardEntry entry) {
    CompletableFuture<Long> result = new CompletableFuture<>();
    enqueue(entry).orTimeout(timeoutMillis + 1000, TimeUnit.MILLISECONDS).whenComplete((index, e) -> {
      if (e == null) {
        result.complete(index);
      } else {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        result.completeExceptionally(cause instanceof TimeoutException t ? timedOut(t) : failure(cause));
      }
    });
    return result;
  }

  private CompletableFuture<Long> enqueue(ShardEntry entry) {
    Pending p = new Pending(entry, bytesOf(entry), new CompletableFuture<>());
    List<Pending> batch = null;
    synchronized (lock) {
      queue.add(p);
      queuedBytes += p.bytes();
      if (awaited > 0 && (queue.size() >= awaited || queuedBytes >= MAX_BATCH_BYTES)) {
        lock.notifyAll();
      }
      if (inFlight < MAX_IN_FLIGHT) {
        inFlight++;
        batch = drainLocked();
      }
    }
    if (batch != null) {
      submit(batch);
    }
    return p.index();
  }

  private static KVStoreException failure(Throwable cause) {
    if (cause instanceof KVStoreException k) {
      return k;
    }
    return new ClusterException("proposing a write failed: " + cause, cause);
  }

  private OutcomeUnknownException timedOut(TimeoutException e) {
    return OutcomeUnknownException.withMessage("outcome unknown: no answer within " + timeoutMillis
        + " ms; the write may still be committed", e);
  }

  /**
   * The size that batching and the largest write go by: its keys' and values' bytes and {@link
   * #MUTATION_OVERHEAD} per key.
   */
  public static long bytesOf(ShardEntry entry) {
    long n = 0;
    for (TableEffects t : entry.tables()) {
      for (Mutation m : t.mutations()) {
        n += m.key().length + (m.value() == null ? 0 : m.value().length) + MUTATION_OVERHEAD;
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
      queuedBytes -= p.bytes();
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
      next(0);
    }
  }

  private void run(List<Pending> batch) {
    int expected = 0;
    try {
      long index = send.apply(merge(batch));
      expected = expectedBack(batch); // before the answers: none of the batch's writers can be back yet
      for (Pending p : batch) {
        p.index().complete(index);
      }
    } catch (RuntimeException e) {
      expected = expectedBack(batch);
      fail(batch, e);
    } finally {
      next(expected);
    }
  }

  /**
   * How many writers the next batch waits for once {@code batch} is answered: its writers and those
   * queued now, or none when nothing is queued now (a lone writer, back before {@link #next} runs,
   * must not wait for writers that are not there).
   */
  private int expectedBack(List<Pending> batch) {
    int queued = queued();
    return queued == 0 ? 0 : batch.size() + queued;
  }

  private int queued() {
    synchronized (lock) {
      return queue.size();
    }
  }

  /**
   * Sends what queued meanwhile, or lowers the in-flight count when nothing did. With writers
   * queued, first waits (at most the batch wait) until {@code expected} are queued: the writers of
   * the batch just answered and those queued when it was. Writers that wait for each answer before
   * their next write come back, and sending before they do makes more, smaller entries.
   */
  private void next(int expected) {
    List<Pending> batch;
    synchronized (lock) {
      if (queue.isEmpty()) {
        inFlight--;
        return;
      }
      if (batchWaitNanos > 0 && queue.size() < expected && queuedBytes < MAX_BATCH_BYTES) {
        awaitLocked(expected);
      }
      batch = drainLocked();
    }
    submit(batch);
  }

  /** Waits, at most the batch wait, until {@code writers} are queued or a batch's bytes are. */
  @GuardedBy("lock")
  private void awaitLocked(int writers) {
    assert Thread.holdsLock(lock);
    long deadline = System.nanoTime() + batchWaitNanos;
    awaited = writers;
    try {
      while (queue.size() < writers && queuedBytes < MAX_BATCH_BYTES) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        lock.wait(left / 1_000_000, (int) (left % 1_000_000));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the pool is stopping: send what is queued
    } finally {
      awaited = 0;
    }
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
