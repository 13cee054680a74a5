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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * The B+tree engine against RocksDB JNI on the KeksDB seed workload (issue 4): 12-byte keys,
 * 500-byte values, {@code records} records loaded in random order; the WAL on without fsync on both
 * sides; the same cache budget (our page buffer, RocksDB's block cache).
 *
 * <ul>
 *   <li>{@code getInBuffer}: random gets, the cache larger than the data;
 *   <li>{@code putRandom}: random overwrites of loaded keys, same cache;
 *   <li>{@code scan1000}: range scans of 1,000 keys from a random key, same cache;
 *   <li>{@code getDataFourTimesBuffer}: random gets with a cache of a quarter of the data bytes
 *       (the file stays in the OS page cache for both stores).
 * </ul>
 *
 * Scores are ops/s. Every operation's latency goes into an HdrHistogram; the p50/p99/p999 of the
 * measurement iterations are printed at the end of each trial as a line starting with
 * {@code LATENCY}.
 *
 * <pre>
 *   java -jar kvstore-bench/target/benchmarks.jar BPlusBenchmark -t 1 -p records=1000000
 * </pre>
 */
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "-XX:+UseParallelGC"})
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 4)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BPlusBenchmark {
  static final int VALUE_BYTES = 500;
  static final int SCAN_LENGTH = 1000;

  static byte[] key(int i) {
    return String.format("%012d", i).getBytes(StandardCharsets.US_ASCII); // 12 bytes
  }

  static byte[] value(long seed) {
    byte[] v = new byte[VALUE_BYTES];
    new Random(seed * 0x9E3779B97F4A7C15L).nextBytes(v);
    return v;
  }

  /** Loaded data plus per-key overhead, for sizing the caches. */
  static long dataBytes(int records) {
    return (long) records * (12 + VALUE_BYTES);
  }

  /** A store loaded with {@code records} records in random order. */
  @State(Scope.Benchmark)
  public abstract static class Loaded {
    @Param({"BPLUS", "ROCKSDB"})
    public StoreType store;

    @Param({"1000000"})
    public int records;

    Path dir;
    StoreAdapter adapter;
    int threads;
    String benchmark;
    private final Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);

    abstract long cacheBytes();

    @Setup(Level.Trial)
    public void load(BenchmarkParams params) throws IOException {
      threads = params.getThreads();
      benchmark = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
      dir = Files.createTempDirectory("bplusbench-" + store);
      adapter = store.open(dir, new BenchSettings(cacheBytes(), 64L << 20));
      int[] order = new int[records];
      for (int i = 0; i < records; i++) {
        order[i] = i;
      }
      Random r = new Random(42);
      for (int i = records - 1; i > 0; i--) {
        int j = r.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      byte[] v = value(1);
      for (int i : order) {
        adapter.put(key(i), v);
      }
      adapter.flush();
    }

    synchronized void add(Histogram h) {
      all.add(h);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      System.out.printf(
          "%nLATENCY %s store=%s records=%d threads=%d count=%d p50=%.1fus p99=%.1fus"
              + " p999=%.1fus max=%.1fus%n",
          benchmark, store, records, threads, all.getTotalCount(), all.getValueAtPercentile(50) / 1e3,
          all.getValueAtPercentile(99) / 1e3, all.getValueAtPercentile(99.9) / 1e3,
          all.getMaxValue() / 1e3);
      adapter.close();
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      }
    }
  }

  /** The cache holds all the data (twice the raw bytes, for page fill and index overhead). */
  @State(Scope.Benchmark)
  public static class InBuffer extends Loaded {
    @Override
    long cacheBytes() {
      return 2 * dataBytes(records) + (64L << 20);
    }
  }

  /** The cache is a quarter of the raw data bytes. */
  @State(Scope.Benchmark)
  public static class OverBuffer extends Loaded {
    @Override
    long cacheBytes() {
      return dataBytes(records) / 4;
    }
  }

  /** Per-thread latency recording, merged into the trial's histogram after each measurement. */
  @State(Scope.Thread)
  public static class Latency {
    final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    Loaded owner;

    void record(Loaded s, long startNanos) {
      owner = s;
      h.recordValue(Math.min(System.nanoTime() - startNanos, TimeUnit.SECONDS.toNanos(60)));
    }

    @TearDown(Level.Iteration)
    public void merge(IterationParams params) {
      if (owner != null && params.getType() == IterationType.MEASUREMENT) {
        owner.add(h);
      }
      h.reset();
    }
  }

  @Benchmark
  public byte[] getInBuffer(InBuffer s, Latency l) {
    int i = ThreadLocalRandom.current().nextInt(s.records);
    long t0 = System.nanoTime();
    byte[] v = s.adapter.get(key(i));
    l.record(s, t0);
    return v;
  }

  @Benchmark
  public void putRandom(InBuffer s, Latency l) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    byte[] k = key(r.nextInt(s.records));
    byte[] v = new byte[VALUE_BYTES];
    v[0] = (byte) r.nextInt();
    long t0 = System.nanoTime();
    s.adapter.put(k, v);
    l.record(s, t0);
  }

  @Benchmark
  public int scan1000(InBuffer s, Latency l) {
    int from = ThreadLocalRandom.current().nextInt(Math.max(1, s.records - SCAN_LENGTH));
    long t0 = System.nanoTime();
    int n = s.adapter.scan(key(from), SCAN_LENGTH);
    l.record(s, t0);
    return n;
  }

  @Benchmark
  public byte[] getDataFourTimesBuffer(OverBuffer s, Latency l) {
    int i = ThreadLocalRandom.current().nextInt(s.records);
    long t0 = System.nanoTime();
    byte[] v = s.adapter.get(key(i));
    l.record(s, t0);
    return v;
  }
}
