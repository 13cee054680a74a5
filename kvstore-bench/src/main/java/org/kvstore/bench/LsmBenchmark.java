package org.kvstore.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LSM engine against RocksDB JNI on the KeksDB seed workload (issue 5): 12-byte keys, 500-byte
 * values, random order, {@code records} records; the same memtable and cache sizes for both, WAL on
 * without fsync (see {@link StoreType}).
 *
 * <ul>
 *   <li>{@code load}: every iteration opens an empty store and puts all records in random order,
 *       split across the JMH threads; the score is seconds per load (lower is better). After the
 *       load the store is flushed and the process's written bytes ({@code wchar} of
 *       /proc/self/io) over the user bytes give the write amplification (WAL included, for both).
 *   <li>{@code get}: random gets of loaded keys after a load and a flush (data mostly in SSTables,
 *       in the OS cache); ops/s.
 *   <li>{@code scan}: range scans of 1,000 keys from a random loaded key; ops/s.
 * </ul>
 *
 * Every operation's latency goes into an HdrHistogram; the p50/p99/p999 of each benchmark and store
 * are logged (logger {@code org.kvstore.bench.LsmBenchmark}) at the end of the trial.
 *
 * <pre>
 *   java -jar kvstore-bench/target/benchmarks.jar LsmBenchmark -t 1 -p records=1000000
 * </pre>
 */
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "-XX:+UseG1GC"})
public class LsmBenchmark {
  private static final Logger LOG = LoggerFactory.getLogger(LsmBenchmark.class);
  static final int KEY_BYTES = 12;
  static final int VALUE_BYTES = 500;
  static final int SCAN_LENGTH = 1000;

  static byte[] key(int i) {
    // 12 ASCII digits: fixed length, byte order = numeric order.
    return String.format("%012d", i).getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    new Random(i * 0x9E3779B97F4A7C15L).nextBytes(v);
    return v;
  }

  /** A random permutation of 0..n-1 (the random put order), fixed by seed. */
  static int[] permutation(int n, long seed) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    Random r = new Random(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  static BenchSettings settings() {
    return new BenchSettings(64L << 20, 64L << 20);
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  /** Bytes this process passed to write(2) so far, or -1 where /proc is missing. */
  static long processWrittenBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
        if (line.startsWith("wchar:")) {
          return Long.parseLong(line.substring(6).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** Latencies of one benchmark, merged from all threads. */
  static final class Latencies {
    private final Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);

    synchronized void add(Histogram h) {
      all.add(h);
      h.reset();
    }

    synchronized String summary() {
      return String.format(
          "count=%d p50=%.1fus p99=%.1fus p999=%.1fus max=%.1fus",
          all.getTotalCount(), all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(99) / 1e3,
          all.getValueAtPercentile(99.9) / 1e3, all.getMaxValue() / 1e3);
    }
  }

  /** Per-thread latency recording. */
  @State(Scope.Thread)
  public static class ThreadLatency {
    final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
  }

  // ---------------------------------------------------------------- load (random put)

  /** A fresh, empty store per iteration. */
  @State(Scope.Benchmark)
  public static class LoadState {
    @Param({"LSM", "ROCKSDB"})
    public StoreType store;

    @Param({"1000000"})
    public int records;

    int[] order;
    Path dir;
    StoreAdapter adapter;
    int threads;
    long wcharBefore;
    final Latencies latencies = new Latencies();

    @Setup(Level.Trial)
    public void trial(BenchmarkParams params) {
      order = permutation(records, 42);
      threads = params.getThreads();
    }

    @Setup(Level.Iteration)
    public void open() throws IOException {
      dir = Files.createTempDirectory("lsmbench-load-" + store);
      adapter = store.open(dir, settings());
      wcharBefore = processWrittenBytes();
    }

    @TearDown(Level.Iteration)
    public void close() throws IOException {
      adapter.flush();
      long written = processWrittenBytes() - wcharBefore;
      long user = (long) records * (KEY_BYTES + VALUE_BYTES);
      LOG.info("{} load of {} records with {} threads: written {} MiB for {} MiB of user data,"
              + " write amplification {} (WAL included)",
          store, records, threads, written >> 20, user >> 20, String.format("%.2f", (double) written / user));
      adapter.close();
      deleteTree(dir);
    }

    @TearDown(Level.Trial)
    public void report() {
      LOG.info("{} load latency per put ({} threads): {}", store, threads, latencies.summary());
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Warmup(iterations = 1)
  @Measurement(iterations = 3)
  public int load(LoadState s, ThreadParams tp, ThreadLatency lat) {
    int n = s.records;
    int t = tp.getThreadCount();
    int from = (int) ((long) n * tp.getThreadIndex() / t);
    int to = (int) ((long) n * (tp.getThreadIndex() + 1) / t);
    StoreAdapter a = s.adapter;
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    for (int i = from; i < to; i++) {
      int k = s.order[i];
      byte[] v = new byte[VALUE_BYTES];
      rnd.nextBytes(v); // incompressible, like value(k), but cheaper to make
      long t0 = System.nanoTime();
      a.put(key(k), v);
      lat.h.recordValue(System.nanoTime() - t0);
    }
    s.latencies.add(lat.h);
    return to - from;
  }

  // ---------------------------------------------------------------- get and scan after a load

  /** A store loaded once per trial, then flushed. */
  @State(Scope.Benchmark)
  public static class LoadedState {
    @Param({"LSM", "ROCKSDB"})
    public StoreType store;

    @Param({"1000000"})
    public int records;

    Path dir;
    StoreAdapter adapter;
    final Latencies getLatencies = new Latencies();
    final Latencies scanLatencies = new Latencies();
    int threads;

    @Setup(Level.Trial)
    public void load(BenchmarkParams params) throws Exception {
      threads = params.getThreads();
      dir = Files.createTempDirectory("lsmbench-read-" + store);
      adapter = store.open(dir, settings());
      int[] order = permutation(records, 42);
      int loaders = 2;
      Thread[] ts = new Thread[loaders];
      for (int t = 0; t < loaders; t++) {
        int from = (int) ((long) records * t / loaders);
        int to = (int) ((long) records * (t + 1) / loaders);
        ts[t] = new Thread(() -> {
          for (int i = from; i < to; i++) {
            adapter.put(key(order[i]), value(order[i]));
          }
        });
        ts[t].start();
      }
      for (Thread t : ts) {
        t.join();
      }
      adapter.flush();
      // Let background compaction settle a little, the same for both stores.
      Thread.sleep(5_000);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      if (getLatencies.summary().startsWith("count=0") && scanLatencies.summary().startsWith("count=0")) {
        LOG.info("{}: no read latencies recorded", store);
      }
      if (!getLatencies.summary().startsWith("count=0")) {
        LOG.info("{} get latency ({} threads, {} records): {}", store, threads, records, getLatencies.summary());
      }
      if (!scanLatencies.summary().startsWith("count=0")) {
        LOG.info("{} scan-{} latency ({} threads, {} records): {}", store, SCAN_LENGTH, threads, records,
            scanLatencies.summary());
      }
      adapter.close();
      deleteTree(dir);
    }
  }

  /** Flushes each thread's histogram into the trial's at the end of every iteration. */
  @State(Scope.Thread)
  public static class ReadLatency {
    final Histogram get = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    final Histogram scan = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    LoadedState loaded;

    @Setup(Level.Iteration)
    public void bind(LoadedState s) {
      loaded = s;
    }

    @TearDown(Level.Iteration)
    public void merge() {
      loaded.getLatencies.add(get);
      loaded.scanLatencies.add(scan);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 5)
  public byte[] get(LoadedState s, ReadLatency lat) {
    byte[] k = key(ThreadLocalRandom.current().nextInt(s.records));
    long t0 = System.nanoTime();
    byte[] v = s.adapter.get(k);
    lat.get.recordValue(System.nanoTime() - t0);
    if (v == null) {
      throw new IllegalStateException("loaded key missing: " + new String(k, StandardCharsets.US_ASCII));
    }
    return v;
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 5)
  public int scan(LoadedState s, ReadLatency lat) {
    byte[] k = key(ThreadLocalRandom.current().nextInt(Math.max(1, s.records - SCAN_LENGTH)));
    long t0 = System.nanoTime();
    int n = s.adapter.scan(k, SCAN_LENGTH);
    lat.scan.recordValue(System.nanoTime() - t0);
    return n;
  }
}
