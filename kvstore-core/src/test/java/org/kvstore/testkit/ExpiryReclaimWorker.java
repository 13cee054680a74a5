package org.kvstore.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.kvstore.Durability;
import org.kvstore.ExpiryStats;
import org.kvstore.KVStore;
import org.kvstore.PutOptions;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.TableInfo;
import org.kvstore.WriteBatch;

/**
 * The child JVM of {@link ExpiryReclaimContract}: writes KEYS keys of 100 bytes with lifetimes of
 * 1 to 10 seconds on a {@link FakeClock}, moves the clock a minute on, then, without reading a key,
 * prints the table's entry estimate and bytes on disk every 100 ms until both fall near zero
 * (at most 1 % of the keys and 5 % of the peak bytes) or a deadline passes. Exit 0 when they did.
 *
 * <pre>java -Xmx256m -cp ... org.kvstore.testkit.ExpiryReclaimWorker DIR ENGINE KEYS [k=v ...]</pre>
 *
 * Output lines: {@code loaded ...}, {@code t_ms=... entries=... bytes=... removed=... cpu_ms=...},
 * and {@code reclaimed after_ms=... expiry_cpu_ms=... peak_bytes=...} or {@code timeout ...}.
 */
public final class ExpiryReclaimWorker {
  private ExpiryReclaimWorker() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    String engine = args[1];
    int keys = Integer.parseInt(args[2]);
    Properties props = new Properties();
    for (int i = 3; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      props.setProperty(kv[0], kv[1]);
    }
    FakeClock clock = FakeClock.atDefaultStart();
    // A B+tree gives pages back at a checkpoint: every 5 s here instead of the default minute, so the
    // wait measures the expiry, not the checkpoint timer.
    StoreOptions options = StoreOptions.builder().durability(Durability.NONE).clock(clock)
        .checkpointInterval(Duration.ofSeconds(5)).build();
    try (KVStore store = KVStore.open(dir, options)) {
      store.createDB("db");
      store.createTable("db", "t", engine, props);
      Table t = store.table("db", "t");
      long t0 = System.nanoTime();
      byte[] value = new byte[100];
      WriteBatch batch = new WriteBatch();
      for (int i = 0; i < keys; i++) {
        byte[] key = String.format("session:%09d", i).getBytes();
        batch.putOwned(key, value, PutOptions.defaults().ttlMillis(1_000 + (i % 9_000)));
        if (batch.size() == 1_000) {
          t.write(batch);
          batch = new WriteBatch();
        }
      }
      if (!batch.isEmpty()) {
        t.write(batch);
      }
      t.flush();
      TableInfo loaded = t.info();
      long peakBytes = loaded.bytesOnDisk();
      System.out.printf("loaded keys=%d entries=%d bytes=%d in_ms=%d%n", keys,
          loaded.entryEstimate(), peakBytes, (System.nanoTime() - t0) / 1_000_000);
      clock.advance(Duration.ofMinutes(1));
      long start = System.nanoTime();
      long deadline = start + Duration.ofMinutes(10).toNanos();
      while (System.nanoTime() < deadline) {
        Thread.sleep(100);
        TableInfo info = t.info();
        peakBytes = Math.max(peakBytes, info.bytesOnDisk());
        ExpiryStats s = store.expiryStats();
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("t_ms=%d entries=%d bytes=%d removed=%d examined=%d expiry_cpu_ms=%d%n",
            elapsed, info.entryEstimate(), info.bytesOnDisk(), s.removed(), s.examined(),
            s.busyNanos() / 1_000_000);
        if (info.entryEstimate() <= keys / 100 && info.bytesOnDisk() <= peakBytes / 20) {
          System.out.printf("reclaimed after_ms=%d expiry_cpu_ms=%d removed=%d peak_bytes=%d final_bytes=%d%n",
              elapsed, s.busyNanos() / 1_000_000, s.removed(), peakBytes, info.bytesOnDisk());
          return;
        }
      }
      System.out.println("timeout");
      System.exit(1); // the parent reads the exit status; this is a test program, not library code
    }
  }
}
