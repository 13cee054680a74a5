package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.NoSpaceException;
import org.kvstore.OutcomeUnknownException;
import org.kvstore.StoreOptions;
import org.kvstore.io.FaultInjectingFileSystem;

/**
 * A compaction that runs out of disk space while flushes still fit (its output is as large as its
 * inputs, a flush only a memtable) is deferred: writes go on and the store is not "full" until
 * level 0 is full, when writes are refused at once; once space returns the compaction runs by
 * itself and writes resume, without a restart.
 */
class LsmCompactionNoSpaceTest {
  private static final String DB = "db";
  private static final String T = "t";
  private static final int STOP_TRIGGER = 6;

  @TempDir Path dir;

  /** Writes of compaction outputs: what the injected full disk refuses. */
  private static final Predicate<Path> COMPACTION_OUTPUT =
      p -> p.getFileName().toString().endsWith(".sst") && Thread.currentThread().getName().startsWith("lsm-compact-");

  private static Properties sizes() {
    Properties p = LsmPowerLossTest.smallSizes();
    p.put("level0.stop.writes.trigger", Integer.toString(STOP_TRIGGER));
    return p;
  }

  private static byte[] key(int i) {
    return String.format("key%07d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    byte[] v = new byte[200];
    byte[] tag = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
    System.arraycopy(tag, 0, v, 0, tag.length);
    return v;
  }

  private static String rootMessage(Throwable e) {
    while (e.getCause() != null) {
      e = e.getCause();
    }
    return e.getMessage();
  }

  private static long stat(KVStore store, String name) {
    return store.tableInfo(DB, T).engineStats().getOrDefault(name, -1L);
  }

  @Test
  @Timeout(120)
  void compactionOutOfSpace_writesGoOnUntilLevel0Full_thenRefusedAndResumeWhenSpaceReturns() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Map<Integer, byte[]> acked = new LinkedHashMap<>();
    try (KVStore store =
        KVStore.open(dir, StoreOptions.builder().fileSystem(fs).durability(Durability.PERIODIC).build())) {
      store.createDB(DB);
      store.createTable(DB, T, LsmEngine.NAME, sizes());
      fs.noSpaceForWrites(COMPACTION_OUTPUT);

      // Three memtables' worth: flushes succeed, the compactions they make due fail.
      int i = 0;
      for (; i < 1000; i++) {
        store.put(DB, T, key(i), value(i));
        acked.put(i, value(i));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (stat(store, "compactions.deferred.no.space") < 1 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(stat(store, "compactions.deferred.no.space")).as("a compaction was deferred").isPositive();
      assertThat(stat(store, "compaction.deferred")).isEqualTo(1);
      assertThat(store.diskSpace().full()).as("a deferred compaction does not make the store full: "
          + store.diskSpace()).isFalse();
      assertThat(stat(store, "level.0.files")).isLessThan(STOP_TRIGGER);

      // Go on writing until level 0 is full: then writes are refused at once, not stalled.
      NoSpaceException refused = null;
      deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      for (; refused == null && System.nanoTime() < deadline; i++) {
        try {
          store.put(DB, T, key(i), value(i));
          acked.put(i, value(i));
        } catch (OutcomeUnknownException e) {
          // A writer that waited for room when the compaction failed: logged (and applied, see
          // LsmNoRoomTest), but refused; not counted either way.
          assertThat(rootMessage(e)).contains("No space left on device");
        } catch (NoSpaceException e) {
          refused = e;
        }
      }
      assertThat(refused).as("writes refused once level 0 is full").isNotNull();
      assertThat(refused.getMessage()).contains("No space left on device");
      assertThat(store.diskSpace().full()).isTrue();
      assertThat(stat(store, "level.0.files")).isGreaterThanOrEqualTo(STOP_TRIGGER);
      int refusedKey = i - 1;
      assertThatThrownBy(() -> store.put(DB, T, key(refusedKey), value(refusedKey)))
          .isInstanceOf(NoSpaceException.class);
      for (Map.Entry<Integer, byte[]> e : acked.entrySet()) {
        assertThat(store.get(DB, T, key(e.getKey()))).as("reads go on: key %d", e.getKey()).isEqualTo(e.getValue());
      }

      // Space returns: the compaction runs by itself and writes resume.
      fs.noSpaceForWrites(p -> false);
      deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      boolean resumed = false;
      while (!resumed && System.nanoTime() < deadline) {
        try {
          store.put(DB, T, key(refusedKey), value(refusedKey));
          acked.put(refusedKey, value(refusedKey));
          resumed = true;
        } catch (NoSpaceException e) {
          Thread.sleep(50);
        }
      }
      assertThat(resumed).as("writes resumed without a restart: " + store.diskSpace()).isTrue();
      deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (stat(store, "compaction.deferred") != 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(stat(store, "compaction.deferred")).isZero();
      assertThat(stat(store, "level.0.files")).isLessThan(STOP_TRIGGER);
    }
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().build())) {
      for (Map.Entry<Integer, byte[]> e : acked.entrySet()) {
        assertThat(store.get(DB, T, key(e.getKey()))).as("acknowledged key %d after reopen", e.getKey())
            .isEqualTo(e.getValue());
      }
    }
  }
}
