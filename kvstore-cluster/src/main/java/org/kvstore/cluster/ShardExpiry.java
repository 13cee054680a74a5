package org.kvstore.cluster;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.ExpiryStats;
import org.kvstore.Precondition;
import org.kvstore.ReplicatedTable;
import org.kvstore.spi.Mutation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster node's active expiry: removes the expired entries of the shards this node leads, as
 * Raft entries, so that every replica drops them alike.
 *
 * <p>The store's own active expiry ({@code org.kvstore.internal.ActiveExpiry}) skips the shard
 * tables: they are replicated, and a replica removing entries by itself would leave the replicas
 * different. This one does the same bounded work on the leader and removes through the shard's
 * write path ({@link Shard#update}: key latches held until the entry is applied, the removes as
 * effects of a Raft entry, group-committed with the shard's other writes); followers only apply
 * those removes. A leader change needs nothing: the old leader's passes stop at its next
 * leadership check, the new leader's start with a full round.
 *
 * <p>The work is bounded as in docs/decisions/0025-active-expiry.md: each tick (the store's
 * {@link org.kvstore.StoreOptions#expiryInterval()}) has a time budget of a quarter of the
 * interval; each (shard, table) is walked by a resumable cursor that sees expired entries
 * ({@link ReplicatedTable#scanIncludingExpired}), at most {@code entriesPerPass} entries a pass; a
 * pass that found a quarter or more expired is followed by another while the budget lasts. The
 * expired keys a pass found are removed in batches of {@link #REMOVE_BATCH}, one
 * {@link Shard#update} each, and each key only if it still reads as absent under its latch
 * (expired or gone), so a write that refreshed it meanwhile wins. A full round notes the earliest
 * expiry it saw among live entries and the earliest one applied since
 * ({@link ReplicatedTable#takeEarliestExpiryApplied}); the next round waits until then, so shards
 * without due entries are not walked.
 *
 * <p>Thread safety: thread-safe. One background thread runs the ticks; {@link #runFullRounds} may
 * be called from any thread. Both hold {@code this} for their passes, so passes never overlap; the
 * counters are atomics.
 */
final class ShardExpiry implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShardExpiry.class);
  /** Keys removed per Raft entry. */
  static final int REMOVE_BATCH = 1024;
  private static final double REPEAT_FRACTION = 0.25;

  private final String nodeId;
  private final List<Shard> shards;
  private final Clock clock;
  private final Duration interval;
  private final int entriesPerPass;
  private final long joinMillis;
  private final Thread thread;
  private volatile boolean stopping;
  /** Called with the expired keys a pass found, before it removes them: a seam for race tests. */
  private volatile Consumer<List<byte[]>> beforeRemoval = keys -> {};
  /** Each (shard, table)'s round, by {@link #key}; only while this node leads the shard. */
  @GuardedBy("this")
  private final Map<String, Progress> progress = new HashMap<>();
  private final AtomicLong examined = new AtomicLong();
  private final AtomicLong removed = new AtomicLong();
  private final AtomicLong passes = new AtomicLong();
  private final AtomicLong busyNanos = new AtomicLong();

  /** Where a table's round stands. Thread safety: guarded by the owning ShardExpiry. */
  private static final class Progress {
    boolean inRound;
    /** Where the running round goes on (null: from the first key). */
    byte[] resumeAt;
    /** The earliest expiry of a live entry the running round saw. */
    long roundEarliestLive = Long.MAX_VALUE;
    /** When the next round is due (0: at once; a new leader does not know the table's content). */
    long dueAt;
  }

  /**
   * @param nodeId this node, for messages and the thread's name
   * @param shards this node's replicas; only those it leads at a tick are walked
   * @param clock the store's clock, which the tables compare expiry times with
   * @param interval time between ticks ({@link Duration#ZERO}: no background ticks)
   * @param entriesPerPass the most entries a pass examines per table
   * @param requestTimeout the shards' request timeout: how long {@link #close} waits for a removal
   *     in flight
   */
  ShardExpiry(String nodeId, List<Shard> shards, Clock clock, Duration interval, int entriesPerPass,
      Duration requestTimeout) {
    this.nodeId = nodeId;
    this.shards = List.copyOf(shards);
    this.clock = clock;
    this.interval = interval;
    this.entriesPerPass = entriesPerPass;
    this.joinMillis = requestTimeout.toMillis() + 5_000;
    this.thread = new Thread(this::run, "kv-shard-expiry-" + nodeId);
    thread.setDaemon(true);
  }

  /** Starts the background ticks, unless the interval is zero. */
  void start() {
    if (!interval.isZero()) {
      thread.start();
    }
  }

  /** Sets what runs between a pass's scan and its removals (tests: refresh keys in that window). */
  void beforeRemoval(Consumer<List<byte[]>> hook) {
    this.beforeRemoval = hook;
  }

  private void run() {
    long budget = Math.max(1_000_000L, interval.toNanos() / 4);
    while (!stopping) {
      LockSupport.parkNanos(interval.toNanos());
      if (stopping) {
        break;
      }
      try {
        tick(System.nanoTime() + budget);
      } catch (RuntimeException e) {
        // a pass's own failures are handled per table; this is a shard's state failing to read
        if (stopping) {
          LOG.debug("node {}: shard expiry stopped with the node: {}", nodeId, e.toString());
        } else {
          LOG.warn("node {}: shard expiry tick failed; trying again at the next tick", nodeId, e);
        }
      }
    }
  }

  private synchronized void tick(long deadline) {
    for (Shard s : shards) {
      if (!s.isLeader()) {
        forget(s); // its leader removes; if this node leads again, it starts with a full round
        continue;
      }
      for (String table : s.spec().tables()) {
        if (stopping) {
          return;
        }
        try {
          double fraction;
          do {
            fraction = pass(s, table, deadline);
          } while (fraction >= REPEAT_FRACTION && !stopping && System.nanoTime() < deadline);
        } catch (RuntimeException e) {
          if (!failed(s, table, e)) {
            break;
          }
        }
      }
    }
  }

  /**
   * Runs a full round over every table of the shards this node leads, from its first key, and
   * returns how many entries were removed: for operators and tests that want the space back now.
   *
   * @throws NotLeaderException if this node lost the lead of a shard meanwhile
   * @throws org.kvstore.OutcomeUnknownException if a removal's outcome is unknown (a leader change)
   */
  synchronized long runFullRounds() {
    long before = removed.get();
    for (Shard s : shards) {
      if (!s.isLeader()) {
        forget(s);
        continue;
      }
      for (String table : s.spec().tables()) {
        Progress p = new Progress(); // due at once, from the first key
        progress.put(key(s, table), p);
        try {
          do {
            pass(s, table, Long.MAX_VALUE);
          } while (p.inRound);
        } catch (RuntimeException e) {
          progress.remove(key(s, table));
          throw e;
        }
      }
    }
    return removed.get() - before;
  }

  /**
   * One pass over {@code table} of {@code shard}, until {@code entriesPerPass} entries or {@code
   * deadline} ({@link System#nanoTime}); returns the fraction of examined entries that were expired.
   */
  @GuardedBy("this")
  private double pass(Shard shard, String table, long deadline) {
    ReplicatedTable t = shard.replicatedTable(table);
    Progress p = progress.computeIfAbsent(key(shard, table), k -> new Progress());
    long now = clock.millis();
    if (!p.inRound) {
      // the earliest expiry applied since the last look also makes a round due
      p.dueAt = Math.min(p.dueAt, t.takeEarliestExpiryApplied());
      if (now < p.dueAt) {
        return 0;
      }
      p.inRound = true;
      p.resumeAt = null;
      p.roundEarliestLive = Long.MAX_VALUE;
    }
    long started = System.nanoTime();
    List<byte[]> expired = new ArrayList<>();
    int seen = 0;
    boolean exhausted = false;
    try (Cursor c = t.scanIncludingExpired(p.resumeAt, null)) {
      while (seen < entriesPerPass && ((seen & 255) != 255 || System.nanoTime() < deadline)) {
        if (!c.next()) {
          exhausted = true;
          break;
        }
        seen++;
        long expiresAt = c.expiresAt();
        if (expiresAt != Entry.NO_EXPIRY) {
          if (Entry.isExpired(expiresAt, now)) {
            expired.add(c.key());
          } else {
            p.roundEarliestLive = Math.min(p.roundEarliestLive, expiresAt);
          }
        }
      }
      if (!exhausted) {
        p.resumeAt = successor(c.key()); // the loop stopped on the last entry it examined
      }
    }
    examined.addAndGet(seen);
    passes.incrementAndGet();
    try {
      if (!expired.isEmpty()) {
        beforeRemoval.accept(expired);
      }
      for (int from = 0; from < expired.size() && !stopping; from += REMOVE_BATCH) {
        removed.addAndGet(removeExpired(shard, table, expired.subList(from, Math.min(expired.size(), from + REMOVE_BATCH))));
      }
    } finally {
      busyNanos.addAndGet(System.nanoTime() - started);
    }
    if (exhausted) {
      p.inRound = false;
      p.resumeAt = null;
      p.dueAt = p.roundEarliestLive; // and the expiries applied meanwhile, at the next look
    }
    return seen == 0 ? 0 : (double) expired.size() / seen;
  }

  /**
   * Removes those of {@code keys} that still read as absent (expired, or removed meanwhile) under
   * their latches, as one Raft entry through the shard's leader; a key written again since the scan
   * is kept. Returns how many removes the entry carried.
   */
  private static int removeExpired(Shard shard, String table, List<byte[]> keys) {
    int[] count = {0};
    shard.update(table, keys, current -> {
      List<Mutation> out = new ArrayList<>(keys.size());
      for (int i = 0; i < current.length; i++) {
        // Reads hide expired entries, as a precondition sees them: "absent" is "still expired" here.
        if (Precondition.absent().holds(current[i])) {
          out.add(Mutation.remove(keys.get(i)));
        }
      }
      count[0] = out.size();
      return out;
    });
    return count[0];
  }

  /**
   * Handles a failed pass over {@code table} of {@code shard}; returns whether the shard's other
   * tables may go on in this tick. The table's round starts over at the next tick.
   */
  @GuardedBy("this")
  private boolean failed(Shard shard, String table, RuntimeException e) {
    progress.remove(key(shard, table));
    if (stopping) {
      LOG.debug("node {}: expiry of shard {} table {} stopped with the node: {}", nodeId, shard.spec().name(), table,
          e.toString());
      return false;
    }
    if (e instanceof NotLeaderException || !shard.isLeader()) {
      // An unknown outcome here is harmless: the removes were of expired keys, and the new
      // leader's expiry finds whatever is left.
      LOG.info("node {}: lost the lead of shard {} during an expiry pass of table {}; its new leader takes over: {}",
          nodeId, shard.spec().name(), table, e.toString());
      forget(shard);
      return false;
    }
    LOG.warn("node {}: expiry pass of shard {} table {} failed; it starts over at the next tick", nodeId,
        shard.spec().name(), table, e);
    return true;
  }

  @GuardedBy("this")
  private void forget(Shard shard) {
    for (String table : shard.spec().tables()) {
      progress.remove(key(shard, table));
    }
  }

  private static String key(Shard shard, String table) {
    return shard.spec().name() + "/" + table;
  }

  /** The smallest key after {@code key}: the key with a zero byte appended. */
  private static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  /** What the passes did since start: entries examined and removed, passes, time spent. */
  ExpiryStats stats() {
    return new ExpiryStats(examined.get(), removed.get(), passes.get(), busyNanos.get());
  }

  /**
   * Stops the ticks and waits for a pass in progress: it ends after the removal in flight, which
   * Raft answers within the request timeout.
   */
  @Override
  public void close() {
    stopping = true;
    LockSupport.unpark(thread);
    if (!thread.isAlive()) {
      return;
    }
    try {
      thread.join(joinMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("node " + nodeId + ": interrupted waiting for the shard expiry to stop", e);
    }
    if (thread.isAlive()) {
      LOG.warn("node {}: the shard expiry did not stop within {} ms; closing the node under it", nodeId, joinMillis);
    }
  }
}
