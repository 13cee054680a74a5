package org.kvstore.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.ExpiryStats;
import org.kvstore.KVStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active expiry: removes expired entries nobody reads, through the logged write path (so a
 * recovery or a replica sees the same deletes), without a full scan per pass.
 *
 * <p>Each table is walked in key order by a resumable cursor that sees expired entries
 * ({@link org.kvstore.spi.EngineTable#newCursorIncludingExpired}); one pass examines at most
 * {@code entriesPerPass} entries of a table, and stops early when the tick's time budget (a quarter
 * of the interval) is spent, then removes the expired ones it found in batches of
 * {@link #REMOVE_BATCH} keys, each key only if it is still expired under its key lock. As in Redis'
 * active expire cycle, a pass that found many expired entries (a quarter or more) is followed at
 * once by another while the budget lasts. A full round notes the earliest expiry it saw among live
 * entries and the earliest one written meanwhile ({@link StoreTable#takeEarliestExpiryWritten}); the
 * next round starts only when that time has come, so a table whose expiring entries are not due
 * (or that has none) is not walked, and a store without expiries pays nothing. The CPU it takes is
 * thus at most a quarter of one core. The reasoning is in docs/decisions/0025-active-expiry.md.
 *
 * <p>Thread safety: one background thread runs the ticks; {@link #runFullRounds} may be called from
 * any thread. Both take {@code this} for a pass, so passes never run concurrently.
 */
public final class ActiveExpiry implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ActiveExpiry.class);
  /** Keys removed per logged batch. */
  static final int REMOVE_BATCH = 1024;
  private static final double REPEAT_FRACTION = 0.25;

  private final Supplier<? extends Iterable<StoreTable>> tables;
  private final Clock clock;
  private final Duration interval;
  private final int entriesPerPass;
  private final Thread thread;
  private volatile boolean stopping;
  @GuardedBy("this")
  private final Map<StoreTable, Progress> progress = new HashMap<>();
  private final AtomicLong examined = new AtomicLong();
  private final AtomicLong removed = new AtomicLong();
  private final AtomicLong passes = new AtomicLong();
  private final AtomicLong busyNanos = new AtomicLong();

  /** Where a table's round stands. Thread safety: guarded by the owning ActiveExpiry. */
  private static final class Progress {
    /** Where the running round goes on; null: no round running. */
    byte[] resumeAt;
    boolean inRound;
    /** The earliest expiry of a live entry the running round saw. */
    long roundEarliestLive = Long.MAX_VALUE;
    /** When the next round is due (0 at open: the table's content is unknown). */
    long dueAt;
  }

  public ActiveExpiry(
      Supplier<? extends Iterable<StoreTable>> tables, Clock clock, Duration interval,
      int entriesPerPass) {
    this.tables = tables;
    this.clock = clock;
    this.interval = interval;
    this.entriesPerPass = entriesPerPass;
    this.thread = new Thread(this::run, "kvstore-active-expiry");
    thread.setDaemon(true);
  }

  /** Starts the background ticks, unless the interval is zero (active expiry off). */
  public void start() {
    if (!interval.isZero()) {
      thread.start();
    }
  }

  private void run() {
    long budget = Math.max(1_000_000L, interval.toNanos() / 4);
    while (!stopping) {
      LockSupport.parkNanos(interval.toNanos());
      if (stopping) {
        break;
      }
      try {
        tick(budget);
      } catch (KVStoreException e) {
        // A closed or failed store: its writes are refused; reads still hide expired entries.
        LOG.debug("active expiry pass stopped: {}", e.toString());
      } catch (RuntimeException e) {
        LOG.warn("active expiry pass failed", e);
      }
    }
  }

  private synchronized void tick(long budgetNanos) {
    long deadline = System.nanoTime() + budgetNanos;
    Set<StoreTable> live = new HashSet<>();
    for (StoreTable t : tables.get()) {
      live.add(t);
      double fraction;
      do {
        fraction = pass(t, deadline);
      } while (fraction >= REPEAT_FRACTION && !stopping && System.nanoTime() < deadline);
    }
    progress.keySet().retainAll(live);
  }

  /**
   * Runs passes until every table finished a full round from where it stood, and returns how many
   * expired entries were removed: for operators and tests that want the space back now.
   */
  public synchronized long runFullRounds() {
    long before = removed.get();
    for (StoreTable t : tables.get()) {
      Progress p = progress.computeIfAbsent(t, k -> new Progress());
      p.dueAt = 0;
      do {
        pass(t, Long.MAX_VALUE);
      } while (p.inRound);
    }
    return removed.get() - before;
  }

  /**
   * One pass over {@code t}, until {@code entriesPerPass} entries or {@code deadline}
   * ({@link System#nanoTime}); returns the fraction of examined entries that were expired.
   */
  @GuardedBy("this")
  private double pass(StoreTable t, long deadline) {
    if (t.replicated()) {
      return 0; // its removals must come through its replication log
    }
    Progress p = progress.computeIfAbsent(t, k -> new Progress());
    long now = clock.millis();
    if (!p.inRound) {
      if (now < Math.min(p.dueAt, t.earliestExpiryWritten())) {
        return 0; // nothing in the table is due yet
      }
      t.takeEarliestExpiryWritten(); // the round sees what was written before it starts
      p.inRound = true;
      p.resumeAt = null;
      p.roundEarliestLive = Long.MAX_VALUE;
    }
    long started = System.nanoTime();
    List<byte[]> expired = new ArrayList<>();
    int seen = 0;
    boolean exhausted = false;
    t.enter();
    try (Cursor c = t.engine().newCursorIncludingExpired(p.resumeAt, null)) {
      byte[] last = null;
      while (seen < entriesPerPass && ((seen & 255) != 255 || System.nanoTime() < deadline)) {
        if (!c.next()) {
          exhausted = true;
          break;
        }
        seen++;
        long expiresAt = c.expiresAt();
        last = null;
        if (expiresAt != Entry.NO_EXPIRY) {
          if (Entry.isExpired(expiresAt, now)) {
            last = c.key();
            expired.add(last);
          } else {
            p.roundEarliestLive = Math.min(p.roundEarliestLive, expiresAt);
          }
        }
        if (last == null && (seen == entriesPerPass || (seen & 255) == 255)) {
          last = c.key();
        }
        if (last != null) {
          p.resumeAt = successor(last);
        }
      }
    } catch (IOException e) {
      throw t.io("active expiry scan", e);
    } finally {
      t.exit();
    }
    int removedHere = 0;
    for (int from = 0; from < expired.size(); from += REMOVE_BATCH) {
      removedHere += t.removeExpired(expired.subList(from, Math.min(expired.size(), from + REMOVE_BATCH)));
    }
    if (exhausted) {
      p.inRound = false;
      p.resumeAt = null;
      // Next round when the earliest live expiry seen comes due, or one written during the round.
      p.dueAt = Math.min(p.roundEarliestLive, t.earliestExpiryWritten());
    }
    examined.addAndGet(seen);
    removed.addAndGet(removedHere);
    passes.incrementAndGet();
    busyNanos.addAndGet(System.nanoTime() - started);
    return seen == 0 ? 0 : (double) expired.size() / seen;
  }

  /** The smallest key after {@code key}: the key with a zero byte appended. */
  private static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  public ExpiryStats stats() {
    return new ExpiryStats(examined.get(), removed.get(), passes.get(), busyNanos.get());
  }

  @Override
  public void close() {
    stopping = true;
    LockSupport.unpark(thread);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
