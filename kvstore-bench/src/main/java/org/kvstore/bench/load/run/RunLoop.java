package org.kvstore.bench.load.run;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.kvstore.bench.load.driver.Driver;
import org.kvstore.bench.load.driver.DriverException;
import org.kvstore.bench.load.driver.Session;
import org.kvstore.bench.load.workload.KeyChooser;
import org.kvstore.bench.load.workload.KeySpace;
import org.kvstore.bench.load.workload.Op;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.ValueSource;
import org.kvstore.bench.load.workload.Workload;

/**
 * Runs a workload against a driver: one thread and one session per client, until the bounds are
 * reached, recording every operation's latency. Without a target rate each thread sends its next
 * request when the last is answered (closed loop) and latency is measured from the actual send;
 * with one, each thread follows a {@link RateLimiter} schedule and latency is measured from the
 * intended start, so stalls are not hidden. Pipelined requests share their batch's latency.
 * The first failure stops every thread and is thrown.
 *
 * <p>Thread safety: thread-safe; one instance per run.
 */
public final class RunLoop {
  private final Driver driver;
  private final Workload workload;
  private final KeySpace space;
  private final KeyChooser chooser;
  private final long seed;

  public RunLoop(Driver driver, Workload workload, KeySpace space, KeyChooser chooser, long seed) {
    this.driver = driver;
    this.workload = workload;
    this.space = space;
    this.chooser = chooser;
    this.seed = seed;
    if (workload.pipelineDepth() > 1) {
      for (Op op : workload.mix().ops()) {
        if (op != Op.GET && op != Op.PUT && op != Op.INSERT) {
          throw new IllegalArgumentException("a pipelined workload sends gets, puts and inserts only, not " + op.label());
        }
      }
      if (workload.secondaryIndexes() > 0) {
        throw new IllegalArgumentException("a pipelined workload cannot write secondary indexes");
      }
    }
  }

  /** Runs until {@code bounds} and returns the measurement; {@code progress} counts every operation. */
  public Measurement run(RunBounds bounds, Progress progress) throws InterruptedException {
    int threads = workload.threads();
    AtomicLong left = new AtomicLong(bounds.ops());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    long[] start = new long[1];
    List<OpRecorder> recorders = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      OpRecorder recorder = new OpRecorder();
      recorders.add(recorder);
      int index = t;
      Thread w = new Thread(() -> {
        try (Session session = driver.openSession()) {
          ready.countDown();
          go.await();
          work(session, index, start[0], bounds, left, failure, recorder, progress);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
          ready.countDown();
        }
      }, "load-" + workload.name() + "-" + t);
      workers.add(w);
      w.start();
    }
    ready.await();
    start[0] = System.nanoTime();
    go.countDown();
    for (Thread w : workers) {
      w.join();
    }
    long end = System.nanoTime();
    Throwable f = failure.get();
    if (f != null) {
      if (f instanceof RuntimeException r) {
        throw r;
      }
      throw new DriverException(workload.name() + " failed", f);
    }
    OpRecorder all = new OpRecorder();
    recorders.forEach(r -> r.mergeInto(all));
    return new Measurement(end - start[0], all.histograms(), all.misses());
  }

  private void work(Session session, int index, long startNanos, RunBounds bounds, AtomicLong left,
      AtomicReference<Throwable> failure, OpRecorder recorder, Progress progress) {
    SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
    ValueSource values = new ValueSource(workload.values());
    int depth = workload.pipelineDepth();
    RateLimiter limiter = workload.isRateLimited()
        ? new RateLimiter(RateLimiter.intervalNanos(workload.targetOpsPerSecond(), workload.threads(), depth),
            startNanos)
        : null;
    long deadline = bounds.byOps() ? Long.MAX_VALUE : startNanos + bounds.duration().toNanos();
    List<Session.Request> batch = new ArrayList<>(depth);
    Op[] batchOps = new Op[depth];
    byte[][] results = new byte[depth][];
    while (failure.get() == null) {
      int n = depth;
      if (bounds.byOps()) {
        long before = left.getAndAdd(-depth);
        if (before <= 0) {
          return;
        }
        n = (int) Math.min(depth, before);
      }
      long intended = limiter != null ? limiter.acquire() : System.nanoTime();
      if (intended >= deadline || (!bounds.byOps() && System.nanoTime() >= deadline)) {
        return;
      }
      if (depth == 1) {
        Op op = workload.mix().choose(random.nextDouble());
        execute(session, op, random, values, recorder);
        recorder.record(op, System.nanoTime() - intended);
      } else {
        batch.clear();
        for (int i = 0; i < n; i++) {
          Op op = workload.mix().choose(random.nextDouble());
          batchOps[i] = op;
          results[i] = null;
          long record = op == Op.INSERT ? space.nextInsert() : chooser.next(random);
          byte[] key = workload.keys().key(record);
          batch.add(new Session.Request(key, op == Op.GET ? null : values.next(random).clone()));
        }
        session.pipeline(batch, results);
        long latency = System.nanoTime() - intended;
        for (int i = 0; i < n; i++) {
          recorder.record(batchOps[i], latency);
          if (batchOps[i] == Op.GET && results[i] == null) {
            recorder.miss();
          }
        }
      }
      progress.step(n);
    }
  }

  private void execute(Session session, Op op, SplittableRandom random, ValueSource values, OpRecorder recorder) {
    long record = op == Op.INSERT ? space.nextInsert() : chooser.next(random);
    byte[] key = workload.keys().key(record);
    switch (op) {
      case GET -> {
        if (session.get(key) == null) {
          recorder.miss();
        }
      }
      case PUT, INSERT -> write(session, key, values.next(random), random);
      case SCAN -> session.scan(key, 1 + random.nextInt(workload.maxScanLength()));
      case RMW -> {
        if (session.get(key) == null) {
          recorder.miss();
        }
        write(session, key, values.next(random), random);
      }
      default -> throw new IllegalStateException("unknown operation " + op);
    }
  }

  /** A put, with its secondary-index entries in the same atomic batch when the workload has any. */
  private void write(Session session, byte[] key, byte[] value, SplittableRandom random) {
    int indexes = workload.secondaryIndexes();
    if (indexes == 0) {
      session.put(key, value);
      return;
    }
    List<byte[]> keys = new ArrayList<>(indexes + 1);
    List<byte[]> vals = new ArrayList<>(indexes + 1);
    keys.add(key);
    vals.add(value);
    for (int i = 1; i <= indexes; i++) {
      keys.add(indexKey(i, random.nextInt(), key));
      vals.add(key);
    }
    session.writeAtomically(keys, vals);
  }

  /**
   * The entry of secondary index {@code i} for a row whose indexed column holds {@code column}:
   * {@code ~i:} (after every row key, so scans of rows never meet index entries), the column value
   * as 8 hex digits, and the row key, so equal column values stay distinct.
   */
  static byte[] indexKey(int i, int column, byte[] rowKey) {
    byte[] prefix = String.format("~%d:%08x:", i, column).getBytes(StandardCharsets.US_ASCII);
    byte[] k = new byte[prefix.length + rowKey.length];
    System.arraycopy(prefix, 0, k, 0, prefix.length);
    System.arraycopy(rowKey, 0, k, prefix.length, rowKey.length);
    return k;
  }
}
