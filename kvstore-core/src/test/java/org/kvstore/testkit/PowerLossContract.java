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
import java.util.concurrent.atomic.AtomicBoolean;
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
 * Simulated power loss (RELIABILITY.md T3): the store runs on a {@link MemFileSystem}; at a random
 * moment while writers run, the file system is cloned as a power loss would leave it (unsynced bytes
 * and directory entries lost, partly written tails), and the store is reopened on the clone.
 *
 * <ul>
 *   <li>{@code sync}: every write acknowledged before the crash is there (4 writers);
 *   <li>{@code periodic} and {@code none}: what survives is a prefix of the write order, never a
 *       hole (one writer, batches included), and every reopen succeeds.
 * </ul>
 */
public abstract class PowerLossContract {
  private static final Path DIR = Path.of("/powerloss/store");

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
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int id = w;
        Thread th = new Thread(() -> {
          Random r = new Random(seed + id);
          int[] versions = new int[20];
          try {
            while (!stop.get()) {
              int j = r.nextInt(versions.length);
              String key = "w" + id + "-" + j;
              int v = versions[j] + 1;
              t.put(b(key), CrashValues.encode(key, v, 8 + r.nextInt(200)));
              versions[j] = v;
              acked.put(key, v);
            }
          } catch (KVStoreException ignored) {
            // the abandoned store may fail once the test closes it
          }
        });
        th.start();
        writers.add(th);
      }
      Thread.sleep(30 + rnd.nextInt(300));
      Map<String, Integer> ackedBeforeCrash = new HashMap<>(acked);
      MemFileSystem after = fs.crashClone(rnd);
      stop.set(true);
      for (Thread th : writers) {
        th.join();
      }
      closeQuietly(store);
      String context = "seed " + seed + " trial " + trial;
      try (KVStore reopened = open(after, Durability.SYNC)) {
        Table r = reopened.table("db", "t");
        for (Map.Entry<String, Integer> e : ackedBeforeCrash.entrySet()) {
          byte[] v = r.get(b(e.getKey()));
          assertThat(v).as("%s: acknowledged %s v%d", context, e.getKey(), e.getValue()).isNotNull();
          assertThat(CrashValues.versionOf(e.getKey(), v)).as(context).isGreaterThanOrEqualTo(e.getValue());
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
        int[] written = {0};
        AtomicBoolean stop = new AtomicBoolean();
        Thread writer = new Thread(() -> {
          Random r = new Random(seed);
          try {
            while (!stop.get()) {
              int n = written[0];
              if (r.nextInt(8) == 0) {
                t.write(new WriteBatch().put(b(key(n)), b("v" + n)).put(b(key(n + 1)), b("v" + (n + 1))));
                written[0] = n + 2;
              } else {
                t.put(b(key(n)), b("v" + n));
                written[0] = n + 1;
              }
            }
          } catch (KVStoreException ignored) {
            // the abandoned store may fail once the test closes it
          }
        });
        writer.start();
        Thread.sleep(30 + rnd.nextInt(300));
        MemFileSystem after = fs.crashClone(rnd);
        stop.set(true);
        writer.join();
        closeQuietly(store);
        String context = mode + " seed " + seed + " trial " + trial;
        try (KVStore reopened = open(after, mode)) {
          Table r = reopened.table("db", "t");
          int present = 0;
          while (r.get(b(key(present))) != null) {
            assertThat(r.get(b(key(present)))).isEqualTo(b("v" + present));
            present++;
          }
          for (int i = present; i < written[0] + 2; i++) {
            assertThat(r.get(b(key(i)))).as("%s: write %d survived but write %d was lost (a hole)", context, i, present)
                .isNull();
          }
        }
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
