package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.testkit.SnapshotTestEngine;

/**
 * The {@code periodic} mode's syncer does not wait for its interval once an eighth of a log segment
 * was written without an fsync, so that a segment roll (which fsyncs the old segment under the log's
 * lock, stopping every writer meanwhile) finds little left to write back.
 */
class PeriodicSyncBytesTest {
  @TempDir Path dir;

  @Test
  void anEighthOfASegmentWritten_isSyncedWithoutWaitingForTheInterval() throws Exception {
    StoreOptions options = StoreOptions.builder().durability(Durability.PERIODIC)
        .syncInterval(Duration.ofHours(1)).checkpointInterval(Duration.ofHours(1))
        .logSegmentBytes(4 << 20).checkpointLogBytes(1L << 30).build();
    try (KVStore store = KVStore.open(dir, options)) {
      store.createDB("db");
      store.createTable("db", "t", SnapshotTestEngine.NAME, new java.util.Properties());
      Table t = store.table("db", "t");
      byte[] value = new byte[8 << 10];
      // Twice: 1 MiB written (two eighths of the segment, no roll), then an fsync within 10 s
      // although the interval is an hour. Signals that come while the syncer is busy fold into
      // one more sync, so each round waits for one new fsync, not one per eighth.
      for (int round = 0; round < 2; round++) {
        long before = store.durabilityStats().walSyncs();
        for (int i = 0; i < 128; i++) {
          t.put(("k" + round + "-" + i).getBytes(), value);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (store.durabilityStats().walSyncs() == before && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        assertThat(store.durabilityStats().walSyncs() - before)
            .as("round %d: fsyncs of the log within 10 s of writing 1 MiB, with a one-hour sync interval", round)
            .isPositive();
      }
    }
  }
}
