package org.kvstore.bplus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.DiskSpaceStatus;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.NoSpaceException;
import org.kvstore.OutcomeUnknownException;
import org.kvstore.RecoveryMode;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.io.FaultInjectingFileSystem.NoSpaceAt;
import org.kvstore.testkit.DiskFullContract;
import org.kvstore.testkit.Seeds;

/**
 * A {@code bplus} table whose buffer pool evicts dirty pages on almost every write runs out of
 * space while the log still has room (the quota covers the table's directory only): the store
 * enters its "no space" state instead of failing, reads go on, writes resume by themselves once
 * the space returns, and a reopen holds every acknowledged write and none that was refused.
 * (The kit's {@link DiskFullContract} rounds run on the same small pool in {@link
 * BPlusEvictionDiskFullContractTest}.)
 */
class BPlusEvictionDiskFullTest {
  private static final int WRITERS = 3;
  private static final int KEYS = 400;

  @TempDir Path tmp;

  /** Per key: the last acknowledged value's tag, outcome-unknown tags since, and refused tags. */
  private static final class KeyState {
    String acked = "<absent>";
    final Set<String> maybe = new HashSet<>();
    final Set<String> refused = new HashSet<>();
  }

  private final Map<String, KeyState> model = new HashMap<>();

  private static KVStore open(FaultInjectingFileSystem fs, Path dir) {
    return KVStore.open(dir, StoreOptions.builder().fileSystem(fs).durability(Durability.PERIODIC)
        .syncInterval(Duration.ofMillis(20)).checkpointInterval(Duration.ofMillis(200))
        .recoveryMode(RecoveryMode.STRICT).build());
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String tag(byte[] v) {
    if (v == null) {
      return "<absent>";
    }
    String s = new String(v, 0, Math.min(v.length, 40), StandardCharsets.UTF_8);
    return s.substring(0, s.indexOf('|'));
  }

  @Test
  @Timeout(300)
  void evictionRunsOutOfSpace_storeWaitsForSpace_resumesByItself_andLosesNothing() throws Exception {
    long seed = Seeds.seed("BPlusEvictionDiskFullTest");
    Random rnd = new Random(seed);
    Path dir = tmp.resolve("store");
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    KVStore store = open(fs, dir);
    try {
      store.createDB("db");
      Properties p = new Properties();
      p.put("page.size", "4KiB");
      p.put("buffer.size", "64KiB");
      store.createTable("db", "t", BPlusEngine.NAME, p);
      Path tableDir;
      try (Stream<Path> files = Files.walk(dir)) {
        tableDir = files.filter(f -> f.getFileName().toString().equals(BPlusTable.FILE_NAME))
            .findFirst().orElseThrow().getParent();
      }
      int tableFull = 0;
      for (int round = 0; round < 8; round++) {
        fs.spaceQuota(tableDir, Long.MAX_VALUE / 4, NoSpaceAt.WRITE);
        fs.spaceQuota(tableDir, fs.usedBytes() + rnd.nextInt(256 << 10), NoSpaceAt.WRITE);
        boolean full = write(store, rnd.nextLong(), round, Duration.ofSeconds(10));
        DiskSpaceStatus st = store.diskSpace();
        assertThat(store.failure()).as("round %d: the store failed: %s", round, st).isNull();
        if (full && st.full()) {
          tableFull += st.lastError().startsWith("table") || st.lastError().startsWith("checkpoint") ? 1 : 0;
          checkReads(store, "round " + round + ", while the disk is full");
        }
        fs.spaceQuota(tableDir, -1, NoSpaceAt.WRITE);
        awaitWritable(store, round);
        if (round % 3 == 2) {
          store.close();
          store = open(fs, dir);
          checkReads(store, "round " + round + ", after reopening");
        }
      }
      assertThat(tableFull).as("rounds in which the page file ran out of space").isGreaterThanOrEqualTo(4);
      store.close();
      store = open(fs, dir);
      checkReads(store, "after the last reopen");
    } finally {
      store.close();
    }
  }

  /** Writers on random keys until one is refused for a full disk (true) or the time is up. */
  private boolean write(KVStore store, long seed, int round, Duration limit) throws Exception {
    Table t = store.table("db", "t");
    AtomicReference<Throwable> error = new AtomicReference<>();
    long deadline = System.nanoTime() + limit.toNanos();
    List<Thread> threads = new ArrayList<>();
    boolean[] refusedOnce = new boolean[1];
    for (int w = 0; w < WRITERS; w++) {
      Random r = new Random(seed + w);
      int writer = w;
      Thread th = new Thread(() -> {
        try {
          for (int i = 0; System.nanoTime() < deadline; i++) {
            synchronized (refusedOnce) {
              if (refusedOnce[0]) {
                return;
              }
            }
            String key = "k" + r.nextInt(KEYS);
            String tag = "r" + round + "w" + writer + "-" + i;
            byte[] v = null;
            if (r.nextInt(10) != 0) {
              v = new byte[100 + r.nextInt(9000)];
              byte[] head = b(tag + "|");
              System.arraycopy(head, 0, v, 0, head.length);
            }
            KeyState s;
            synchronized (model) {
              s = model.computeIfAbsent(key, k -> new KeyState());
            }
            // One writer per key at a time, so the model's order is the store's order.
            synchronized (s) {
              try {
                if (v == null) {
                  t.remove(b(key));
                } else {
                  t.put(b(key), v);
                }
                s.acked = v == null ? "<absent>" : tag;
                s.maybe.clear();
              } catch (OutcomeUnknownException e) {
                s.maybe.add(v == null ? "<absent>" : tag);
              } catch (NoSpaceException e) {
                s.refused.add(tag);
                synchronized (refusedOnce) {
                  refusedOnce[0] = true;
                }
              }
            }
          }
        } catch (Throwable e) {
          error.compareAndSet(null, e);
        }
      });
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    if (error.get() != null) {
      throw new AssertionError("round " + round + ": a writer failed", error.get());
    }
    return refusedOnce[0];
  }

  private void checkReads(KVStore store, String when) {
    Table t = store.table("db", "t");
    synchronized (model) {
      for (Map.Entry<String, KeyState> e : model.entrySet()) {
        KeyState s = e.getValue();
        String found = tag(t.get(b(e.getKey())));
        if (found.equals(s.acked) || s.maybe.contains(found)) {
          continue;
        }
        if (s.refused.contains(found)) {
          fail("%s: %s holds %s, a write the client was told failed for lack of space", when, e.getKey(), found);
        }
        fail("%s: %s holds %s, expected %s or one of %s", when, e.getKey(), found, s.acked, s.maybe);
      }
    }
  }

  /** Writes succeed again within the contract's 6 s of the quota being lifted, without a restart. */
  private static void awaitWritable(KVStore store, int round) throws InterruptedException {
    long start = System.nanoTime();
    Table t = store.table("db", "t");
    while (System.nanoTime() - start < Duration.ofSeconds(6).toNanos()) {
      try {
        t.put(b("probe"), b("round " + round + "|"));
        return;
      } catch (NoSpaceException | OutcomeUnknownException e) {
        Thread.sleep(20);
      }
    }
    throw new AssertionError("round " + round + ": writes did not resume within 6 s of space returning: "
        + store.diskSpace() + ", failure " + store.failure());
  }
}
