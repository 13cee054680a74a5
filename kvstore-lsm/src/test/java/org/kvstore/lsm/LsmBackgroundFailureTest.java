package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.kvstore.NoSpaceException;
import org.kvstore.OutcomeUnknownException;
import org.kvstore.ReadOnlyStoreException;
import org.kvstore.RecoveryMode;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.io.FaultInjectingFileSystem;

/** Background work of a table (a flush, a compaction) that fails for good, and the store around it. */
class LsmBackgroundFailureTest {
  /** Opens the store with {@code options} and creates table db/t of small memtables. */
  private KVStore openWithSmallTable(StoreOptions options) {
    KVStore store = KVStore.open(dir, options);
    store.createDB("db");
    store.createTable("db", "t", LsmEngine.NAME, LsmPowerLossTest.smallSizes());
    return store;
  }

  /** Through {@code fs}: periodic durability, no checkpoints, strict recovery. */
  static StoreOptions strictPeriodic(FaultInjectingFileSystem fs) {
    return StoreOptions.builder().fileSystem(fs).durability(Durability.PERIODIC)
        .checkpointInterval(Duration.ZERO).recoveryMode(RecoveryMode.STRICT).build();
  }

  @TempDir Path dir;

  private static byte[] key(int i) {
    return String.format("key%07d", i).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A flush whose manifest fsync fails fails the table's background work for good. The next write
   * is logged but not applied (its outcome is unknown) and the store turns read-only; the table's
   * state lacks that write, but the log holds it and the reopen replays it. So a write that then
   * finds nothing to do, a remove of that key, must be refused like any other write, not
   * acknowledged: the reopen would undo it (how {@link LsmDiskFullTest} lost acknowledged removes).
   */
  @Test
  @Timeout(60)
  void failedManifestSync_removeOfTheUnappliedWritesKey_isRefusedAndTheReopenReplaysTheWrite() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    StoreOptions options = strictPeriodic(fs);
    KVStore store = openWithSmallTable(options);
    Table t = store.table("db", "t");
    fs.failSyncs(p -> p.getFileName().toString().startsWith("MANIFEST"));
    byte[] value = new byte[200];

    // Writes fill memtables until a flush fails: the write after that is logged, not applied.
    byte[] unapplied = null;
    for (int i = 0; unapplied == null && i < 1_000_000; i++) {
      try {
        t.put(key(i), value);
      } catch (OutcomeUnknownException e) {
        unapplied = key(i);
      }
    }
    assertThat(unapplied).as("a write failed in the table after it was logged").isNotNull();
    assertThat(store.failure()).as("the store is read-only").isNotNull();
    assertThat(t.get(unapplied)).as("logged, not applied").isNull();

    byte[] k = unapplied;
    assertThatThrownBy(() -> t.remove(k))
        .as("a remove that finds its key absent is still a write")
        .isInstanceOf(ReadOnlyStoreException.class);

    try {
      store.close();
    } catch (KVStoreException e) {
      // a failed store may fail to close cleanly; the reopen recovers from the files
    }
    fs.heal();
    try (KVStore reopened = KVStore.open(dir, options)) {
      assertThat(reopened.table("db", "t").get(k)).as("replayed from the log").isEqualTo(value);
    }
  }

  /**
   * A flush out of space puts the store in the "no space" state, which retries the flush through
   * the table; a compaction that meanwhile fails for good (its file's fsync, EIO) makes every such
   * retry fail for good too. The store then turns read-only (reopen to recover) instead of refusing
   * writes as "disk full" forever, also once space is freed ({@link LsmDiskFullTest}: "writes did
   * not resume").
   */
  @Test
  @Timeout(60)
  void flushOutOfSpace_compactionFailsForGoodMeanwhile_storeTurnsReadOnlyNotFullForever() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    StoreOptions options = strictPeriodic(fs);
    KVStore store = openWithSmallTable(options);
    Table t = store.table("db", "t");
    // The first compaction's output fsync waits for the release, then fails (EIO).
    CountDownLatch compacting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    fs.failSyncs(p -> {
      if (!p.getFileName().toString().endsWith(".sst") || !Thread.currentThread().getName().startsWith("lsm-compact-")) {
        return false;
      }
      compacting.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return true;
    });
    byte[] value = new byte[200];
    int i = 0;
    for (; compacting.getCount() > 0 && i < 1_000_000; i++) {
      t.put(key(i), value);
    }
    assertThat(compacting.await(30, TimeUnit.SECONDS)).as("a compaction runs").isTrue();

    // Flushes now run out of space: the store refuses writes and retries the flush.
    fs.noSpaceForWrites(p -> p.getFileName().toString().endsWith(".sst")
        && Thread.currentThread().getName().startsWith("lsm-flush-"));
    for (; !store.diskSpace().full() && i < 1_000_000; i++) {
      try {
        t.put(key(i), value);
      } catch (KVStoreException e) {
        // refused (the disk is full), or logged and refused for want of room
      }
    }
    assertThat(store.diskSpace().full()).as("a flush ran out of space").isTrue();

    release.countDown(); // the compaction fails for good
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (store.failure() == null && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(store.failure()).as("the store failed, not full forever: " + store.diskSpace()).isNotNull();
    assertThatThrownBy(() -> t.put(key(0), value)).isInstanceOf(ReadOnlyStoreException.class)
        .isNotInstanceOf(NoSpaceException.class);
    try {
      store.close();
    } catch (KVStoreException e) {
      // a failed store may fail to close cleanly; the reopen recovers from the files
    }
    fs.heal();
    fs.noSpaceForWrites(p -> false);
    try (KVStore reopened = KVStore.open(dir, options)) {
      assertThat(reopened.table("db", "t").get(key(0))).isEqualTo(value);
    }
  }
}
