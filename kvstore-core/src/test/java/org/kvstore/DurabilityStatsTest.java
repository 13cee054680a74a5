package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.testkit.SnapshotTestEngine;

/** {@link KVStore#durabilityStats()}: what the log and the checkpointer report. */
class DurabilityStatsTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private KVStore open(FaultInjectingFileSystem fs, Durability durability) {
    KVStore store = KVStore.open(dir, StoreOptions.builder().fileSystem(fs).durability(durability)
        .checkpointInterval(Duration.ZERO).build());
    store.createDB("db");
    store.createTable("db", "t", SnapshotTestEngine.NAME, new Properties());
    return store;
  }

  @Test
  void durabilityStats_syncWrites_countOneFsyncPerRoundAndTheirBytes() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    try (KVStore store = open(fs, Durability.SYNC)) {
      DurabilityStats before = store.durabilityStats();
      long fsSyncsBefore = fs.syncCount();
      for (int i = 0; i < 50; i++) {
        store.put("db", "t", "k" + i, new byte[100]);
      }
      DurabilityStats after = store.durabilityStats();
      long logSyncs = after.walSyncs() - before.walSyncs();
      assertThat(logSyncs).as("one fsync per acknowledged sync write, none batched here").isEqualTo(50);
      assertThat(fs.syncCount() - fsSyncsBefore).as("every fsync the file system saw on the log")
          .isGreaterThanOrEqualTo(logSyncs);
      assertThat(after.walSyncNanos().sum()).isGreaterThan(before.walSyncNanos().sum());
      assertThat(after.walSyncNanos().max()).isPositive();
      assertThat(after.walAppendedBytes() - before.walAppendedBytes()).isGreaterThan(50 * 100);
      assertThat(after.walBatchRecords().sum() - before.walBatchRecords().sum()).isEqualTo(50);
      assertThat(after.checkpoints()).isZero();
    }
  }

  @Test
  void durabilityStats_concurrentSyncWriters_shareFsyncs() throws Exception {
    try (KVStore store = open(new FaultInjectingFileSystem(), Durability.SYNC)) {
      long syncsBefore = store.durabilityStats().walSyncs();
      int threads = 8;
      int perThread = 100;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int id = t;
          done.add(pool.submit(() -> {
            for (int i = 0; i < perThread; i++) {
              store.put("db", "t", id + "-" + i, b("v"));
            }
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdown();
      }
      DurabilityStats s = store.durabilityStats();
      assertThat(s.walBatchRecords().sum()).isEqualTo(threads * perThread);
      assertThat(s.walSyncs() - syncsBefore).isPositive().isLessThanOrEqualTo(threads * perThread);
      assertThat(s.walBatchRecords().count()).isLessThanOrEqualTo(threads * perThread);
    }
  }

  @Test
  void durabilityStats_checkpoint_recordsItsDuration_andFailuresAreCounted() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    KVStore store = open(fs, Durability.PERIODIC);
    store.put("db", "t", "k", b("v"));
    store.checkpoint();
    store.checkpoint();
    DurabilityStats s = store.durabilityStats();
    assertThat(s.checkpoints()).isEqualTo(2);
    assertThat(s.checkpointNanos().sum()).isPositive();
    assertThat(s.checkpointNanos().max()).isLessThanOrEqualTo(s.checkpointNanos().sum());
    assertThat(s.checkpointFailures()).isZero();

    fs.failSyncs(p -> true);
    store.put("db", "t", "k2", b("v"));
    try {
      store.checkpoint();
    } catch (KVStoreException expected) {
      // the table's snapshot cannot be made durable
    }
    assertThat(store.durabilityStats().checkpointFailures()).isEqualTo(1);
    assertThat(store.durabilityStats().checkpoints()).isEqualTo(2);
    fs.heal();
    try {
      store.close();
    } catch (KVStoreException failedEarlier) {
      // the failed fsync may have latched
    }
  }
}
