package org.kvstore.bench;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;

/**
 * The group-commit ratio on a shared, noisy machine: alternates short runs of 1 and 32 {@code sync}
 * writers (and the disk's raw fsync rate) round after round, so both see the same disk weather,
 * and reports each round's ratio and the median. {@link GroupCommitBenchmark} is the JMH form.
 *
 * <pre>
 * java -cp kvstore-bench/target/benchmarks.jar org.kvstore.bench.GroupCommitRatio [ENGINE] [ROUNDS] [SECONDS]
 * </pre>
 */
public final class GroupCommitRatio {
  private GroupCommitRatio() {}

  public static void main(String[] args) throws Exception {
    String engine = args.length > 0 ? args[0] : "lsm";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 2;
    Path dir = Files.createTempDirectory("kvstore-gc-ratio");
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().durability(Durability.SYNC).build())) {
      store.createDB("bench");
      store.createTable("bench", "t", engine, new Properties());
      Table table = store.table("bench", "t");
      AtomicLong keys = new AtomicLong();
      run(table, keys, 8, 1); // warm-up
      List<Double> ratios = new ArrayList<>();
      for (int r = 1; r <= rounds; r++) {
        double one = run(table, keys, 1, seconds);
        double many = run(table, keys, 32, seconds);
        double fsync = rawFsync(dir, seconds);
        ratios.add(many / one);
        System.out.printf("round %d: 1 writer %.0f ops/s, 32 writers %.0f ops/s, ratio %.1f; raw fsync %.0f/s%n",
            r, one, many, many / one, fsync);
      }
      double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      System.out.printf("median ratio 32/1 writers: %.1f (rounds: %s)%n", sorted[sorted.length / 2], Arrays.toString(sorted));
    } finally {
      BenchFiles.deleteTree(dir);
    }
  }

  private static double run(Table table, AtomicLong keys, int threads, double seconds) throws InterruptedException {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    AtomicLong done = new AtomicLong();
    Thread[] ts = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      ts[i] = new Thread(() -> {
        byte[] value = new byte[100];
        while (System.nanoTime() < end) {
          ThreadLocalRandom.current().nextBytes(value);
          table.put(Long.toString(keys.incrementAndGet()).getBytes(), value);
          done.incrementAndGet();
        }
      });
      ts[i].start();
    }
    for (Thread t : ts) {
      t.join();
    }
    return done.get() / seconds;
  }

  private static double rawFsync(Path dir, double seconds) throws Exception {
    Path f = dir.resolve("raw-fsync.bin");
    long n = 0;
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer b = ByteBuffer.allocateDirect(128);
      long end = System.nanoTime() + (long) (seconds * 1e9);
      while (System.nanoTime() < end) {
        b.clear();
        ch.write(b);
        ch.force(false);
        n++;
      }
    }
    Files.delete(f);
    return n / seconds;
  }
}
