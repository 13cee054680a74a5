package org.kvstore.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.SyncFailedException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.DiskSpaceStatus;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.kvstore.NoSpaceException;
import org.kvstore.OutcomeUnknownException;
import org.kvstore.ReadOnlyStoreException;
import org.kvstore.RecoveryMode;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.io.FaultInjectingFileSystem.NoSpaceAt;

/**
 * The disk fills up under a mixed load (RELIABILITY.md T8 (a)): a store on a
 * {@link FaultInjectingFileSystem} with a space quota, ENOSPC reported from {@code write},
 * {@code sync} or {@code close} at random, round after round with random value sizes and random
 * headroom, so that the space runs out during WAL appends, flushes, compactions and checkpoints.
 * Each round: write until the store refuses, keep writing and reading for a while, free the space
 * (lift the quota), and require writes to succeed again without a restart. Every few rounds, and at
 * the end, the store is reopened (strict recovery) and checked against the writers' record:
 *
 * <ul>
 *   <li>every acknowledged write is there (or a later write of its key);
 *   <li>no write the client was told failed is there ({@link OutcomeUnknownException} writes may be);
 *   <li>reads never fail while the disk is full;
 *   <li>writes resume within {@link #RESUME_WITHIN} of space returning, unless an fsync failed (the
 *       store is then read-only until reopened, which the round does: T7).
 * </ul>
 */
public abstract class DiskFullContract {
  static final Duration RESUME_WITHIN = Duration.ofSeconds(6);
  private static final int WRITERS = 3;
  private static final int KEYS_PER_WRITER = 200;
  /** How many failed writes per key {@link KeyState#failed} remembers for the report. */
  private static final int FAILED_KEPT = 64;

  @TempDir Path tmp;

  protected abstract String engineName();

  /** Table properties that make the engine's background work run often on little data. */
  protected Properties tableProperties() {
    return new Properties();
  }

  /** 100 rounds (RELIABILITY.md T8) in the default build; the long profiles' scale of 50 above that. */
  protected int rounds() {
    return Math.max(100, TestScale.current().scaled(50));
  }

  /**
   * Where ENOSPC may surface for this engine. {@code CLOSE} only means something for an engine that
   * closes the files it writes while it runs.
   */
  protected List<NoSpaceAt> noSpaceModes() {
    return List.of(NoSpaceAt.WRITE, NoSpaceAt.WRITE, NoSpaceAt.WRITE, NoSpaceAt.SYNC, NoSpaceAt.CLOSE);
  }

  /** What a key may hold: its last acknowledged value (null: absent) and unknown-outcome values since. */
  private static final class KeyState {
    byte[] acked;
    final Set<String> maybe = new HashSet<>();
    /**
     * Tags of the key's latest {@link #FAILED_KEPT} writes the client was told failed, with what it
     * was told: only for the report, since a value that is neither acknowledged nor of unknown
     * outcome fails the check anyway. Bounded, because writers refused at once by a full disk keep
     * writing and make millions of them in a round.
     */
    final Map<String, String> failed = new java.util.LinkedHashMap<>() {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
        return size() > FAILED_KEPT;
      }
    };
  }

  private final Map<String, KeyState> model = new ConcurrentHashMap<>();
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong unknown = new AtomicLong();
  /** Out-of-space failures per kind of work (wal, checkpoint, table) over every store this test opened. */
  private final Map<String, Long> outOfSpace = new TreeMap<>();

  private KVStore open(FaultInjectingFileSystem fs, Path dir, RecoveryMode mode) {
    return KVStore.open(dir, StoreOptions.builder().fileSystem(fs).durability(Durability.PERIODIC)
        .syncInterval(Duration.ofMillis(20)).checkpointInterval(Duration.ofMillis(100))
        .checkpointLogBytes(1 << 20).logSegmentBytes(128 << 10).recoveryMode(mode).build());
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String tag(byte[] v) {
    // A value starts with its unique tag, "w<writer>-<seq>|", then filler.
    String s = new String(v, 0, Math.min(v.length, 32), StandardCharsets.UTF_8);
    int bar = s.indexOf('|');
    return bar < 0 ? s : s.substring(0, bar);
  }

  @Test
  @Timeout(900)
  void diskFull_mixedLoad_refusesCleanlyKeepsReadsAndResumesWithoutRestart() throws Exception {
    long seed = Seeds.seed(getClass().getSimpleName() + ".diskFull");
    Random rnd = new Random(seed);
    Path dir = tmp.resolve("store");
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    KVStore store = open(fs, dir, RecoveryMode.STRICT);
    store.createDB("db");
    store.createTable("db", "t", engineName(), tableProperties());
    Map<String, Integer> sources = new TreeMap<>();
    Map<NoSpaceAt, Integer> modes = new EnumMap<>(NoSpaceAt.class);
    int filled = 0;
    int resumed = 0;
    int reopenedAfterFsync = 0;
    long fillNanos = 0;
    long resumeNanos = 0;
    try {
      for (int round = 0; round < rounds(); round++) {
        NoSpaceAt at = noSpaceModes().get(rnd.nextInt(noSpaceModes().size()));
        int maxValue = 1 << (6 + rnd.nextInt(11)); // 64 B to 64 KiB
        long t0 = System.nanoTime();
        fs.spaceQuota(dir, Long.MAX_VALUE / 4, at);
        if (rnd.nextInt(10) < 4) {
          // The space runs out in a checkpoint (flush, page writes) started right after a burst.
          runUntilFull(store, rnd.nextLong(), maxValue, Duration.ofMillis(30));
          fs.spaceQuota(dir, fs.usedBytes() + rnd.nextInt(16 << 10), at);
          try {
            store.checkpoint();
          } catch (KVStoreException e) {
            // NoSpaceException, or read-only after a failed fsync: the round goes on either way
          }
        } else {
          fs.spaceQuota(dir, fs.usedBytes() + 4096 + rnd.nextInt(128 << 10), at);
        }
        boolean full = runUntilFull(store, rnd.nextLong(), maxValue, Duration.ofMillis(1000));
        fillNanos += System.nanoTime() - t0;
        DiskSpaceStatus st = store.diskSpace();
        if (full && st.full()) {
          filled++;
          modes.merge(at, 1, Integer::sum);
          String src = st.lastError().startsWith("table") ? "table" : st.lastError().split(":")[0];
          sources.merge(src, 1, Integer::sum);
          // Still full: writes are refused at once, reads go on.
          keepGoingWhileFull(store, rnd.nextLong(), maxValue);
        }
        fs.spaceQuota(dir, -1, at);
        long t1 = System.nanoTime();
        boolean writable = awaitWritable(store, round);
        resumeNanos += System.nanoTime() - t1;
        if (writable) {
          resumed += full && st.full() ? 1 : 0;
        } else {
          KVStoreException failure = store.failure();
          assertThat(failure).as("round %d: writes did not resume, and the store is not failed", round).isNotNull();
          assertThat(hasSyncFailure(failure))
              .as("round %d: only a failed fsync may make the store read-only, was: %s", round, failure)
              .isTrue();
          reopenedAfterFsync++;
          store = reopen(store, fs, dir);
        }
        if (round % 10 == 9) {
          store = reopen(store, fs, dir);
        }
      }
      store = reopen(store, fs, dir);
    } finally {
      store.close();
    }
    System.out.printf("%s: seed %d, %d rounds, %d filled (last error from %s; %s), out of space in %s, "
            + "%d resumed without restart, %d reopened after a failed fsync; writes: %d acknowledged, %d refused, %d outcome unknown; "
            + "%d ms filling, %d ms waiting for writes to resume%n",
        getClass().getSimpleName(), seed, rounds(), filled, sources, modes, outOfSpace, resumed, reopenedAfterFsync,
        acked.get(), refused.get(), unknown.get(), fillNanos / 1_000_000, resumeNanos / 1_000_000);
    assertThat(filled).as("rounds in which the disk filled").isGreaterThanOrEqualTo(rounds() / 2);
    assertThat(resumed).as("rounds that resumed without a restart").isGreaterThanOrEqualTo(rounds() / 3);
    assertThat(outOfSpace).as("where the space ran out").containsKey("wal");
    assertThat(outOfSpace.keySet()).as("background work that ran out of space")
        .containsAnyOf("table", "checkpoint");
  }

  private static boolean hasSyncFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SyncFailedException) {
        return true;
      }
    }
    return false;
  }

  /** Writers on their own keys until one is refused for a full disk (true) or the time is up. */
  private boolean runUntilFull(KVStore store, long seed, int maxValue, Duration limit) throws Exception {
    AtomicBoolean full = new AtomicBoolean();
    AtomicReference<Throwable> error = new AtomicReference<>();
    long deadline = System.nanoTime() + limit.toNanos();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      Random r = new Random(seed + w);
      Thread t = new Thread(() -> {
        try {
          while (!full.get() && System.nanoTime() < deadline) {
            if (writeOnce(store, writer, r, maxValue) == Outcome.REFUSED_FULL) {
              full.set(true);
            }
          }
        } catch (Throwable e) {
          error.compareAndSet(null, e);
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    if (error.get() != null) {
      throw new AssertionError("writer failed", error.get());
    }
    return full.get() || store.diskSpace().full();
  }

  /** Writes go on being refused for a while, and every acknowledged key reads back. */
  private void keepGoingWhileFull(KVStore store, long seed, int maxValue) {
    Random r = new Random(seed);
    long until = System.nanoTime() + Duration.ofMillis(50).toNanos();
    Table t = store.table("db", "t");
    while (System.nanoTime() < until) {
      writeOnce(store, r.nextInt(WRITERS), r, maxValue);
      String key = "w" + r.nextInt(WRITERS) + "-" + r.nextInt(KEYS_PER_WRITER);
      checkKey(key, t.get(b(key)), "read while the disk is full");
    }
  }

  enum Outcome { ACKED, REFUSED_FULL, REFUSED, UNKNOWN }

  /** One put, remove or batch of writer {@code w}'s keys, recorded in the model. */
  private Outcome writeOnce(KVStore store, int w, Random r, int maxValue) {
    Table t = store.table("db", "t");
    int op = r.nextInt(10);
    int n = op < 7 ? 1 : 2 + r.nextInt(4);
    List<String> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String key = "w" + w + "-" + r.nextInt(KEYS_PER_WRITER);
      if (keys.contains(key)) {
        continue;
      }
      keys.add(key);
      if (op == 9 && i == 0) {
        values.add(null);
      } else {
        String tag = "w" + w + "-" + System.nanoTime() + "-" + r.nextInt(1 << 30);
        byte[] v = new byte[Math.max(tag.length() + 1, r.nextInt(maxValue + 1))];
        byte[] head = b(tag + "|");
        System.arraycopy(head, 0, v, 0, Math.min(head.length, v.length));
        values.add(v);
      }
    }
    Outcome outcome;
    String told = "";
    try {
      if (keys.size() == 1) {
        if (values.get(0) == null) {
          t.remove(b(keys.get(0)));
        } else {
          t.put(b(keys.get(0)), values.get(0));
        }
      } else {
        WriteBatch batch = new WriteBatch();
        for (int i = 0; i < keys.size(); i++) {
          if (values.get(i) == null) {
            batch.remove(b(keys.get(i)));
          } else {
            batch.put(b(keys.get(i)), values.get(i));
          }
        }
        t.write(batch);
      }
      outcome = Outcome.ACKED;
      acked.incrementAndGet();
    } catch (OutcomeUnknownException e) {
      outcome = Outcome.UNKNOWN;
      unknown.incrementAndGet();
    } catch (NoSpaceException e) {
      told = e.toString();
      assertThat(e.getMessage()).contains("disk full").contains(e.directory().toString());
      outcome = Outcome.REFUSED_FULL;
      refused.incrementAndGet();
    } catch (ReadOnlyStoreException e) {
      told = e.toString();
      outcome = Outcome.REFUSED;
      refused.incrementAndGet();
    } catch (KVStoreException e) {
      // Another I/O failure of a write not in the log (an append cut back for another reason).
      told = e.toString();
      outcome = Outcome.REFUSED;
      refused.incrementAndGet();
    }
    for (int i = 0; i < keys.size(); i++) {
      KeyState s = model.computeIfAbsent(keys.get(i), k -> new KeyState());
      synchronized (s) {
        String tag = values.get(i) == null ? "<deleted>" : tag(values.get(i));
        switch (outcome) {
          case ACKED -> {
            s.acked = values.get(i);
            s.maybe.clear();
          }
          case UNKNOWN -> s.maybe.add(tag);
          default -> s.failed.put(tag, told);
        }
      }
    }
    return outcome;
  }

  /** {@code found} is what {@code key} may hold: its acknowledged value or an unknown-outcome one. */
  private void checkKey(String key, byte[] found, String when) {
    KeyState s = model.get(key);
    if (s == null) {
      assertThat(found).as("%s: %s was never written", when, key).isNull();
      return;
    }
    synchronized (s) {
      String foundTag = found == null ? "<deleted>" : tag(found);
      String ackedTag = s.acked == null ? "<deleted>" : tag(s.acked);
      if (foundTag.equals(ackedTag) || s.maybe.contains(foundTag)) {
        return;
      }
      if (s.failed.containsKey(foundTag)) {
        fail("%s: %s holds %s, a write the client was told failed: %s", when, key, foundTag, s.failed.get(foundTag));
      }
      if (found == null && s.acked == null) {
        return;
      }
      fail("%s: %s holds %s, expected %s (or one of %s)", when, key, foundTag, ackedTag, s.maybe);
    }
  }

  /** Writes succeed again within {@link #RESUME_WITHIN}; false when the store failed for good. */
  private boolean awaitWritable(KVStore store, int round) throws InterruptedException {
    long start = System.nanoTime();
    Table t = store.table("db", "t");
    while (System.nanoTime() - start < RESUME_WITHIN.toNanos()) {
      try {
        t.put(b("probe"), b("round " + round));
        return true;
      } catch (NoSpaceException e) {
        Thread.sleep(20);
      } catch (ReadOnlyStoreException e) {
        return false;
      } catch (OutcomeUnknownException e) {
        if (store.failure() != null) {
          return false;
        }
        Thread.sleep(20);
      }
    }
    if (store.failure() != null) {
      return false;
    }
    throw new AssertionError("round " + round + ": writes did not resume within " + RESUME_WITHIN
        + " of space returning: " + store.diskSpace());
  }

  /** Closes, reopens with strict recovery and checks every key against the model. */
  private KVStore reopen(KVStore store, FaultInjectingFileSystem fs, Path dir) {
    store.diskSpace().outOfSpaceBySource().forEach((source, n) -> outOfSpace.merge(source.split(" ")[0], n, Long::sum));
    try {
      store.close();
    } catch (KVStoreException e) {
      // A store that failed may fail to close its log cleanly; the reopen below must still work.
    }
    KVStore reopened = open(fs, dir, RecoveryMode.STRICT);
    Table t = reopened.table("db", "t");
    for (String key : model.keySet()) {
      checkKey(key, t.get(b(key)), "after reopening");
    }
    return reopened;
  }
}
