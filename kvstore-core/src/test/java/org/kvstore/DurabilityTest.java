package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.testkit.SnapshotTestEngine;

/**
 * The durability contract of docs/durability.md, in process: acknowledged writes survive a crash
 * (simulated by making every file operation fail from some point on, then reopening), a failed
 * fsync turns the store read-only, a full disk fails writes without losing any and heals, and
 * checkpoints and backups keep everything.
 */
class DurabilityTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private KVStore open(FaultInjectingFileSystem fs, Durability durability) {
    return KVStore.open(dir, StoreOptions.builder().fileSystem(fs).durability(durability)
        .checkpointInterval(Duration.ZERO).build());
  }

  private static void createTable(KVStore store) {
    store.createDB("db");
    store.createTable("db", "t", SnapshotTestEngine.NAME, new Properties());
  }

  /** Simulates a process crash: nothing more reaches the disk, then the store object is dropped. */
  private static void crash(KVStore store, FaultInjectingFileSystem fs) {
    fs.crashAfter(0);
    try {
      store.close();
    } catch (KVStoreException expected) {
      // every file operation fails after the crash point
    }
    fs.heal();
  }

  @Test
  void acknowledgedWrites_surviveACrash_inEveryMode() {
    for (Durability mode : Durability.values()) {
      Path d = dir.resolve(mode.name());
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      KVStore store = KVStore.open(d, StoreOptions.builder().fileSystem(fs).durability(mode).checkpointInterval(Duration.ZERO).build());
      createTable(store);
      Table t = store.table("db", "t");
      for (int i = 0; i < 500; i++) {
        t.put(b("k" + i), b("v" + i));
      }
      t.write(new WriteBatch().put(b("batch-a"), b("1")).put(b("batch-b"), b("2")).remove(b("k0")));
      t.remove(b("k1"));
      crash(store, fs);
      try (KVStore reopened = KVStore.open(d, StoreOptions.defaults())) {
        Table r = reopened.table("db", "t");
        assertThat(r.get(b("k0"))).isNull();
        assertThat(r.get(b("k1"))).isNull();
        for (int i = 2; i < 500; i++) {
          assertThat(r.get(b("k" + i))).as("%s k%d", mode, i).isEqualTo(b("v" + i));
        }
        assertThat(r.get(b("batch-a"))).isEqualTo(b("1"));
        assertThat(r.get(b("batch-b"))).isEqualTo(b("2"));
      }
    }
  }

  /** A {@code sync} store on {@code fs} whose table db/t holds "acked", and whose log's fsyncs fail from now on. */
  private KVStore storeWhoseLogSyncsFail(FaultInjectingFileSystem fs) {
    KVStore store = open(fs, Durability.SYNC);
    createTable(store);
    store.table("db", "t").put(b("acked"), b("yes"));
    fs.failSyncs(p -> p.getFileName().toString().endsWith(".log"));
    return store;
  }

  @Test
  void failedLogFsync_outcomeUnknown_makesTheStoreReadOnly_andReopenRecovers() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    KVStore store = storeWhoseLogSyncsFail(fs);
    Table t = store.table("db", "t");
    // Its record was written: a restart may replay it, so the write is not reported as failed.
    assertThatThrownBy(() -> t.put(b("failed"), b("no")))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining(".log")
        .hasMessageContaining("EIO");
    long syncsAfterFailure = fs.syncCount();
    assertThatThrownBy(() -> t.put(b("later"), b("x")))
        .isInstanceOf(ReadOnlyStoreException.class)
        .hasMessageContaining("EIO");
    assertThat(fs.syncCount()).as("no fsync retried on the failed log").isEqualTo(syncsAfterFailure);
    assertThat(t.get(b("acked"))).isEqualTo(b("yes"));
    assertThat(t.get(b("failed"))).as("a write whose fsync failed is never visible").isNull();
    assertThat(store.failure()).isNotNull();
    fs.heal();
    store.close();
    try (KVStore reopened = KVStore.open(dir, StoreOptions.defaults())) {
      assertThat(reopened.get("db", "t", "acked")).isEqualTo(b("yes"));
      reopened.put("db", "t", "after", b("reopen"));
    }
  }

  /**
   * A write that finds nothing to do (a remove of an absent key, a failed precondition) is still a
   * write: on a read-only store it is refused, not acknowledged. The table's state does not hold the
   * write whose outcome is unknown, but the log does, and the reopen replays it: an acknowledged
   * remove of its key would be undone (LsmDiskFullTest lost removes this way).
   */
  @Test
  void failedLogFsync_writeThatFindsNothingToDo_isRefusedNotAcknowledged() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    KVStore store = storeWhoseLogSyncsFail(fs);
    Table t = store.table("db", "t");
    assertThatThrownBy(() -> t.put(b("unknown"), b("logged")))
        .isInstanceOf(OutcomeUnknownException.class);
    assertThat(t.get(b("unknown"))).as("logged, not applied").isNull();

    assertThatThrownBy(() -> t.remove(b("unknown")))
        .as("a remove that finds the key absent")
        .isInstanceOf(ReadOnlyStoreException.class)
        .hasMessageContaining("EIO");
    assertThatThrownBy(() -> t.remove(b("acked"), Precondition.absent()))
        .as("a write whose precondition fails")
        .isInstanceOf(ReadOnlyStoreException.class);
    assertThatThrownBy(() -> t.update(List.of(b("unknown")), current -> null))
        .as("an update that writes nothing")
        .isInstanceOf(ReadOnlyStoreException.class);

    fs.heal();
    store.close();
    try (KVStore reopened = KVStore.open(dir, StoreOptions.defaults())) {
      assertThat(reopened.get("db", "t", "unknown")).as("replayed from the log").isEqualTo(b("logged"));
      assertThat(reopened.get("db", "t", "acked")).isEqualTo(b("yes"));
    }
  }

  @Test
  void fullDisk_failsWritesWithoutLosingAcknowledgedOnes_andWritesResumeWhenSpaceIsFreed() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    KVStore store = open(fs, Durability.SYNC);
    createTable(store);
    Table t = store.table("db", "t");
    List<Integer> acked = new ArrayList<>();
    fs.diskFullAfter(20_000);
    int failures = 0;
    for (int i = 0; i < 400; i++) {
      try {
        t.put(b("k" + i), new byte[100]);
        acked.add(i);
      } catch (NoSpaceException e) {
        assertThat(e).hasMessageContaining("disk full: No space left on device in " + dir.resolve("wal"));
        failures++;
      }
    }
    assertThat(failures).isPositive();
    assertThat(acked).isNotEmpty();
    assertThat(store.failure()).as("a full disk is not a fatal failure").isNull();
    assertThat(store.diskSpace().full()).as("writes refused until space is freed").isTrue();
    assertThatThrownBy(() -> t.remove(b("never-written")))
        .as("also a write that finds nothing to do").isInstanceOf(NoSpaceException.class);
    for (int i : acked) {
      assertThat(t.get(b("k" + i))).isNotNull();
    }
    fs.diskFullAfter(-1);
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(6);
    while (store.diskSpace().full() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(store.diskSpace().full()).as("writes resume by themselves once space is freed").isFalse();
    assertThat(store.diskSpace().resumes()).isEqualTo(1);
    t.put(b("after-space-freed"), b("ok"));
    assertThat(t.get(b("after-space-freed"))).isEqualTo(b("ok"));
    crash(store, fs);
    try (KVStore reopened = KVStore.open(dir, StoreOptions.builder().recoveryMode(RecoveryMode.STRICT).build())) {
      Table r = reopened.table("db", "t");
      for (int i : acked) {
        assertThat(r.get(b("k" + i))).as("acked k%d", i).isNotNull();
      }
      assertThat(r.get(b("after-space-freed"))).isEqualTo(b("ok"));
    }
  }

  @Test
  void groupCommit_concurrentSyncWritersShareFsyncs() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    try (KVStore store = open(fs, Durability.SYNC)) {
      createTable(store);
      Table t = store.table("db", "t");
      long syncsBefore = fs.syncCount();
      int threads = 16;
      int perThread = 200;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> futures = new ArrayList<>();
      for (int th = 0; th < threads; th++) {
        int id = th;
        futures.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            t.put(b(id + "-" + i), b("v"));
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();
      long syncs = fs.syncCount() - syncsBefore;
      assertThat(syncs).as("fsyncs for %d writes", threads * perThread).isLessThan(threads * perThread);
      assertThat(syncs).isPositive();
    }
  }

  @Test
  void checkpointsRacingWithWriters_neverFail() throws Exception {
    // Regression: the apply watermark read isEmpty() then first() of the in-flight set while
    // writers removed their LSNs, and a checkpoint could die with NoSuchElementException.
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE)
        .checkpointInterval(Duration.ZERO).build())) {
      createTable(store);
      Table t = store.table("db", "t");
      ExecutorService pool = Executors.newFixedThreadPool(4);
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      List<Future<Integer>> writers = new ArrayList<>();
      for (int th = 0; th < 4; th++) {
        int id = th;
        writers.add(pool.submit(() -> {
          int n = 0;
          while (!stop.get()) {
            t.put(b(id + "-" + (n % 1000)), b("v" + n));
            n++;
          }
          return n;
        }));
      }
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
      int checkpoints = 0;
      try {
        while (System.nanoTime() < end) {
          store.checkpoint();
          checkpoints++;
        }
      } finally {
        stop.set(true);
        pool.shutdown();
      }
      for (Future<Integer> f : writers) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isPositive();
      }
      assertThat(checkpoints).isPositive();
    }
  }

  @Test
  void periodicMode_syncsInTheBackground() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().fileSystem(fs).durability(Durability.PERIODIC)
        .syncInterval(Duration.ofMillis(50)).checkpointInterval(Duration.ZERO).build())) {
      createTable(store);
      long before = fs.syncCount();
      store.put("db", "t", "k", b("v"));
      assertThat(fs.syncCount()).as("a periodic write does not fsync").isEqualTo(before);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (fs.syncCount() == before && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(fs.syncCount()).isGreaterThan(before);
    }
  }

  @Test
  void checkpoint_deletesLogSegmentsNoTableNeeds_andDataSurvives() throws Exception {
    StoreOptions options = StoreOptions.builder().logSegmentBytes(64 << 10).checkpointInterval(Duration.ZERO).build();
    try (KVStore store = KVStore.open(dir, options)) {
      createTable(store);
      store.createTable("db", "idle", SnapshotTestEngine.NAME, new Properties());
      for (int i = 0; i < 3000; i++) {
        store.put("db", "t", "k" + i, new byte[100]);
      }
      assertThat(segments()).hasSizeGreaterThan(3);
      store.checkpoint();
      assertThat(segments()).as("an idle table does not pin old segments").hasSizeLessThanOrEqualTo(2);
    }
    try (KVStore store = KVStore.open(dir, options)) {
      for (int i = 0; i < 3000; i++) {
        assertThat(store.get("db", "t", "k" + i)).hasSize(100);
      }
    }
  }

  private List<String> segments() throws Exception {
    try (Stream<Path> s = Files.list(dir.resolve("wal"))) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log")).sorted().toList();
    }
  }

  @Test
  void crashAtEveryStepOfACheckpoint_losesNothing() {
    for (int step = 0; step < 12; step++) {
      Path d = dir.resolve("step" + step);
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      KVStore store = KVStore.open(d, StoreOptions.builder().fileSystem(fs).checkpointInterval(Duration.ZERO).build());
      createTable(store);
      for (int i = 0; i < 100; i++) {
        store.put("db", "t", "k" + i, b("v" + i));
      }
      store.checkpoint();
      for (int i = 100; i < 200; i++) {
        store.put("db", "t", "k" + i, b("v" + i));
      }
      fs.crashAfter(step);
      try {
        store.checkpoint();
      } catch (KVStoreException e) {
        // crashed mid-checkpoint
      }
      crash(store, fs);
      try (KVStore reopened = KVStore.open(d, StoreOptions.defaults())) {
        for (int i = 0; i < 200; i++) {
          assertThat(reopened.get("db", "t", "k" + i)).as("step %d k%d", step, i).isEqualTo(b("v" + i));
        }
      }
    }
  }

  @Test
  void backup_opensAsAStoreWithEveryAcknowledgedWrite() {
    Path target = dir.resolve("backup");
    try (KVStore store = KVStore.open(dir.resolve("live"), StoreOptions.defaults())) {
      createTable(store);
      store.createTable("db", "mem", "memory", null);
      for (int i = 0; i < 1000; i++) {
        store.put("db", "t", "k" + i, b("v" + i));
      }
      store.checkpoint();
      for (int i = 1000; i < 1100; i++) {
        store.put("db", "t", "k" + i, b("v" + i)); // only in the log
      }
      store.backup(target);
      store.put("db", "t", "after-backup", b("x"));
      assertThatThrownBy(() -> store.backup(target)).isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("not empty");
    }
    try (KVStore copy = KVStore.open(target, StoreOptions.defaults())) {
      assertThat(copy.listTables("db")).containsExactly("mem", "t");
      for (int i = 0; i < 1100; i++) {
        assertThat(copy.get("db", "t", "k" + i)).isEqualTo(b("v" + i));
      }
      assertThat(copy.get("db", "t", "after-backup")).isNull();
    }
  }

  @Test
  void tableStateNewerThanDamageInTheLog_failsTheOpenUnlessSalvage() throws Exception {
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().checkpointInterval(Duration.ZERO).build())) {
      createTable(store);
      for (int i = 0; i < 50; i++) {
        store.put("db", "t", "k" + i, b("v" + i));
      }
    } // close checkpoints: the table's persisted LSN is the last write's
    // Damage the newest segment that holds records: cut it in the middle of the records.
    List<String> segs = segments();
    Path withRecords = null;
    for (String s : segs) {
      if (Files.size(dir.resolve("wal").resolve(s)) > 200) {
        withRecords = dir.resolve("wal").resolve(s);
      }
    }
    for (String s : segs) {
      Path p = dir.resolve("wal").resolve(s);
      if (!p.equals(withRecords)) {
        Files.delete(p); // leave the damaged segment as the newest
      }
    }
    byte[] bytes = Files.readAllBytes(withRecords);
    Files.write(withRecords, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertThatThrownBy(() -> KVStore.open(dir, StoreOptions.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("persisted state up to LSN")
        .hasMessageContaining(withRecords.toString());
    try (KVStore salvaged = KVStore.open(dir, StoreOptions.builder().recoveryMode(RecoveryMode.SALVAGE).build())) {
      assertThat(salvaged.get("db", "t", "k49")).isEqualTo(b("v49"));
    }
  }
}
