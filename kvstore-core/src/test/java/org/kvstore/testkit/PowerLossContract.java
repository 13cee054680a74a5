package org.kvstore.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.io.MemFileSystem;

/**
 * Simulated power loss: the store runs on a {@link MemFileSystem}; at a random
 * moment while writers run, the file system is cloned as a power loss would leave it (unsynced bytes
 * and directory entries lost, partly written tails), and the store is reopened on the clone.
 *
 * <p>Each crash waits until at least {@value #MIN_ACKED_BEFORE_CRASH} writes were acknowledged, and a
 * writer that fails before the crash fails the test: a store that refuses every write cannot pass.
 *
 * <ul>
 *   <li>{@code sync}: every write acknowledged before the crash is there (4 writers);
 *   <li>{@code periodic} and {@code none}: what survives is a prefix of the write order, never a
 *       hole (one writer, batches included), and every reopen succeeds.
 * </ul>
 */
public abstract class PowerLossContract {
  private static final Path DIR = Path.of("/powerloss/store");
  /**
   * Writes that must be acknowledged before each crash. Without it a store that refuses or stalls
   * every write would pass: it loses nothing because it never promised anything.
   */
  static final int MIN_ACKED_BEFORE_CRASH = 50;

  protected abstract String engineName();

  protected Properties tableProperties() {
    return new Properties();
  }

  protected int trials() {
    return TestScale.current().scaled(15);
  }

  private KVStore open(MemFileSystem fs, Durability mode) {
    return KVStore.open(DIR, StoreOptions.builder().fileSystem(fs).durability(mode)
        .syncInterval(Duration.ofMillis(20)).checkpointInterval(Duration.ofMillis(150)).build());
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  @Timeout(600)
  void syncMode_keepsEveryAcknowledgedWriteThroughPowerLoss() throws Exception {
    long seed = Seeds.seed(getClass().getSimpleName() + ".powerLossSync");
    Random rnd = new Random(seed);
    for (int trial = 0; trial < trials(); trial++) {
      MemFileSystem fs = new MemFileSystem();
      KVStore store = open(fs, Durability.SYNC);
      store.createDB("db");
      store.createTable("db", "t", engineName(), tableProperties());
      Table t = store.table("db", "t");
      Map<String, Integer> acked = new ConcurrentHashMap<>();
      Writers writers = new Writers();
      for (int w = 0; w < 4; w++) {
        int id = w;
        writers.start(() -> {
          Random r = new Random(seed + id);
          int[] versions = new int[20];
          while (!writers.stopped()) {
            int j = r.nextInt(versions.length);
            String key = "w" + id + "-" + j;
            int v = versions[j] + 1;
            t.put(b(key), CrashValues.encode(key, v, 8 + r.nextInt(200)), CrashValues.optionsOf(key, v));
            versions[j] = v;
            acked.put(key, v);
            writers.acknowledged();
          }
        });
      }
      String context = "seed " + seed + " trial " + trial;
      writers.awaitAcknowledged(MIN_ACKED_BEFORE_CRASH, context);
      Thread.sleep(rnd.nextInt(300));
      Map<String, Integer> ackedBeforeCrash = new HashMap<>(acked);
      MemFileSystem after = fs.crashClone(rnd);
      writers.stopAndJoin(context);
      closeQuietly(store);
      assertThat(ackedBeforeCrash).as("%s: keys acknowledged before the crash", context).isNotEmpty();
      try (KVStore reopened = open(after, Durability.SYNC)) {
        Table r = reopened.table("db", "t");
        for (Map.Entry<String, Integer> e : ackedBeforeCrash.entrySet()) {
          byte[] v = r.get(b(e.getKey()));
          assertThat(v).as("%s: acknowledged %s v%d", context, e.getKey(), e.getValue()).isNotNull();
          int version = CrashValues.versionOf(e.getKey(), v);
          assertThat(version).as(context).isGreaterThanOrEqualTo(e.getValue());
          assertThat(r.getEntry(b(e.getKey())).expiresAt()).as("%s: expiry of %s", context, e.getKey())
              .isEqualTo(CrashValues.expiryOf(e.getKey(), version));
        }
      }
    }
  }

  @Test
  @Timeout(600)
  void periodicAndNoneModes_loseOnlyASuffixNeverAHole() throws Exception {
    long seed = Seeds.seed(getClass().getSimpleName() + ".powerLossSuffix");
    Random rnd = new Random(seed);
    for (Durability mode : List.of(Durability.PERIODIC, Durability.NONE)) {
      for (int trial = 0; trial < trials(); trial++) {
        MemFileSystem fs = new MemFileSystem();
        KVStore store = open(fs, mode);
        store.createDB("db");
        store.createTable("db", "t", engineName(), tableProperties());
        Table t = store.table("db", "t");
        AtomicInteger written = new AtomicInteger();
        Writers writers = new Writers();
        writers.start(() -> {
          Random r = new Random(seed);
          while (!writers.stopped()) {
            int n = written.get();
            if (r.nextInt(8) == 0) {
              t.write(new WriteBatch().put(b(key(n)), b("v" + n)).put(b(key(n + 1)), b("v" + (n + 1))));
              written.set(n + 2);
            } else {
              t.put(b(key(n)), b("v" + n));
              written.set(n + 1);
            }
            writers.acknowledged();
          }
        });
        String context = mode + " seed " + seed + " trial " + trial;
        writers.awaitAcknowledged(MIN_ACKED_BEFORE_CRASH, context);
        Thread.sleep(rnd.nextInt(300));
        int writtenBeforeCrash = written.get();
        MemFileSystem after = fs.crashClone(rnd);
        writers.stopAndJoin(context);
        closeQuietly(store);
        assertThat(writtenBeforeCrash).as("%s: writes acknowledged before the crash", context)
            .isGreaterThanOrEqualTo(MIN_ACKED_BEFORE_CRASH);
        try (KVStore reopened = open(after, mode)) {
          Table r = reopened.table("db", "t");
          int present = 0;
          while (r.get(b(key(present))) != null) {
            assertThat(r.get(b(key(present)))).isEqualTo(b("v" + present));
            present++;
          }
          for (int i = present; i < written.get() + 2; i++) {
            assertThat(r.get(b(key(i)))).as("%s: write %d survived but write %d was lost (a hole)", context, i, present)
                .isNull();
          }
        }
      }
    }
  }

  /**
   * The writer threads of a trial. A writer that fails before the test stops it fails the trial
   * (with the failure as the cause), instead of quietly leaving nothing to check.
   */
  private static final class Writers {
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /** A write loop that writes until {@link #stopped()}; it may throw. */
    interface Loop {
      void run() throws Exception;
    }

    void start(Loop loop) {
      Thread th = new Thread(() -> {
        try {
          loop.run();
        } catch (Throwable e) {
          if (!stop.get()) {
            failure.compareAndSet(null, e);
          }
        }
      });
      threads.add(th);
      th.start();
    }

    boolean stopped() {
      return stop.get();
    }

    void acknowledged() {
      acknowledged.incrementAndGet();
    }

    /** Waits until {@code n} writes were acknowledged; fails if a writer failed or 60 s pass first. */
    void awaitAcknowledged(int n, String context) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (acknowledged.get() < n) {
        throwIfFailed(context);
        if (threads.stream().noneMatch(Thread::isAlive)) {
          throwIfFailed(context); // a writer's failure happens before its end
          throw new AssertionError(context + ": the writers ended after " + acknowledged.get() + " of " + n
              + " acknowledged writes");
        }
        assertThat(System.nanoTime() - deadline).as("%s: %d writes acknowledged within 60 s, only %d were",
            context, n, acknowledged.get()).isNegative();
        Thread.sleep(1);
      }
    }

    void stopAndJoin(String context) throws InterruptedException {
      stop.set(true);
      for (Thread th : threads) {
        th.join();
      }
      throwIfFailed(context);
    }

    private void throwIfFailed(String context) {
      Throwable e = failure.get();
      if (e != null) {
        throw new AssertionError(context + ": a writer failed before the crash: " + e, e);
      }
    }
  }

  private static String key(int n) {
    return String.format("seq%08d", n);
  }

  private static void closeQuietly(KVStore store) {
    try {
      store.close();
    } catch (KVStoreException ignored) {
      // the store outlived its simulated machine; only the clone matters
    }
  }
}
