package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.kvstore.OutcomeUnknownException;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.io.FaultInjectingFileSystem;

/**
 * A write that waits for room (a full memtable, an immutable one waiting for its flush) when that
 * flush fails for lack of disk space is refused, after it was logged: its client hears that the
 * outcome is unknown. The table applies it all the same. If it did not, the store's apply watermark
 * would pass a write the table does not hold: once writes resume, a remove of its key finds the key
 * absent and is acknowledged with nothing logged, and a restart before the next flush replays the
 * write and undoes the acknowledged remove.
 */
class LsmNoRoomTest {
  @TempDir Path dir;

  private static byte[] key(int i) {
    return String.format("key%07d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static long stat(KVStore store, String name) {
    return store.tableInfo("db", "t").engineStats().getOrDefault(name, -1L);
  }

  @Test
  @Timeout(60)
  void flushOutOfSpace_writeWaitingForRoom_isRefusedButApplied() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    StoreOptions options = LsmBackgroundFailureTest.strictPeriodic(fs);
    KVStore store = KVStore.open(dir, options);
    store.createDB("db");
    Properties sizes = LsmPowerLossTest.smallSizes(); // one immutable memtable at most (the default)
    store.createTable("db", "t", LsmEngine.NAME, sizes);
    store.createTable("db", "other", LsmEngine.NAME, sizes);
    Table t = store.table("db", "t");
    // The flush's writes of its table file wait for the release, then fail for lack of space.
    CountDownLatch release = new CountDownLatch(1);
    fs.noSpaceForWrites(p -> {
      if (!p.getFileName().toString().endsWith(".sst") || !Thread.currentThread().getName().startsWith("lsm-flush-")) {
        return false;
      }
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return true;
    });

    // One writer fills the memtable and the next one, then waits for room.
    byte[] value = new byte[200];
    AtomicInteger writing = new AtomicInteger(-1);
    AtomicReference<Throwable> refused = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try {
        for (int i = 0; ; i++) {
          writing.set(i);
          t.put(key(i), value);
        }
      } catch (Throwable e) {
        refused.set(e);
      }
    });
    writer.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (stat(store, "write.stalls") < 1 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(stat(store, "write.stalls")).as("the writer waits for room").isEqualTo(1);
    byte[] k = key(writing.get());
    release.countDown();
    writer.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(refused.get()).as("the waiting write, logged, is refused when the flush fails")
        .isInstanceOf(OutcomeUnknownException.class);
    assertThat(t.get(k)).as("and applied all the same").isEqualTo(value);

    // Space returns and writes resume; the write's key is removed.
    fs.noSpaceForWrites(p -> false);
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (store.diskSpace().full() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(store.diskSpace().full()).as("writes resume: " + store.diskSpace()).isFalse();
    assertThat(t.remove(k)).as("the key is there to remove").isTrue();

    // The log's fsync fails before the store persists anything more; the reopen replays the log.
    store.put("db", "other", "k", value); // a record to sync that leaves table t alone
    fs.failSyncs(p -> p.getFileName().toString().endsWith(".log"));
    try {
      store.checkpoint();
    } catch (KVStoreException e) {
      // the log's fsync failed: the store is read-only
    }
    assertThat(store.failure()).isNotNull();
    try {
      store.close();
    } catch (KVStoreException e) {
      // a failed store may fail to close cleanly; the reopen recovers from the files
    }
    fs.heal();
    try (KVStore reopened = KVStore.open(dir, options)) {
      assertThat(reopened.table("db", "t").get(k)).as("the acknowledged remove").isNull();
    }
  }
}
