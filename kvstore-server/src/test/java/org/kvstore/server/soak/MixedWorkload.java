package org.kvstore.server.soak;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.util.SafeEncoder;

/**
 * The soak's mixed RESP workload (the T1 mix of reads, writes, deletes and counters): several Jedis
 * connections, each on its own thread, on one table, each request one of
 *
 * <ul>
 *   <li>35 % {@code GET k}, 13 % {@code MGET} of 8 keys,
 *   <li>20 % {@code SET k v}, 15 % {@code SET k v EX 2..20} (so active expiry has work),
 *   <li>7 % {@code DEL k}, 10 % {@code INCR} of one of 1,000 counters,
 * </ul>
 *
 * <p>with keys drawn uniformly from {@code keys} and values of 32 to 512 bytes. {@link #prefill} writes
 * every key once; {@link #calibrate}
 * runs it as fast as the connections go; {@link #run} holds a fixed total rate (each connection
 * its share, on a fixed schedule; a connection more than a second behind drops the backlog instead
 * of bursting). Latencies (from sending a request to its reply, in microseconds) go to one
 * {@link Recorder} that {@link #takeWindow} empties.
 *
 * <p>Thread safety: {@link #takeWindow}, {@link #errors} and {@link #errorSamples} may be called
 * from any thread while a phase runs; phases run one at a time.
 */
final class MixedWorkload implements AutoCloseable {
  private static final int COUNTERS = 1000;
  private static final int MGET_KEYS = 8;
  private static final int MIN_VALUE = 32;
  private static final int MAX_VALUE = 512;

  private final int port;
  private final int keys;
  private final long seed;
  private final List<String> table;
  private final ExecutorService threads;
  private final List<Jedis> clients = new ArrayList<>();
  private final Recorder latency = new Recorder(3);
  private final LongAdder errors = new LongAdder();
  private final List<String> errorSamples = Collections.synchronizedList(new ArrayList<>());
  private final byte[] valuePool;
  private final List<Future<?>> running = new ArrayList<>();

  /** Opens {@code connections} connections, each switched to {@code table} (db, table) with KV.USE. */
  MixedWorkload(int port, int connections, int keys, long seed, List<String> table) {
    this.port = port;
    this.keys = keys;
    this.seed = seed;
    this.table = List.copyOf(table);
    AtomicInteger n = new AtomicInteger();
    this.threads = Executors.newFixedThreadPool(connections, r -> {
      Thread t = new Thread(r, "soak-client-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    valuePool = new byte[64 * 1024];
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = 0; i < valuePool.length; i++) {
      valuePool[i] = (byte) ('a' + rnd.nextInt(26));
    }
    for (int i = 0; i < connections; i++) {
      clients.add(connect());
    }
  }

  private Jedis connect() {
    Jedis j = new Jedis("127.0.0.1", port, 10_000);
    j.sendCommand(() -> SafeEncoder.encode("KV.USE"), table.get(0), table.get(1));
    return j;
  }

  /**
   * Writes every key once with the mix's writes in their proportions (plain SET 20 : SET EX 15 :
   * DEL 7), pipelined on one connection, so the run starts where the mix leaves the data once it
   * has touched every key (live values, expiring ones and deletes), not with data that grows or
   * shrinks toward that for the first minutes.
   */
  void prefill() {
    SplittableRandom rnd = new SplittableRandom(seed);
    try (Jedis j = connect(); Pipeline p = j.pipelined()) {
      for (int k = 0; k < keys; k++) {
        byte[] key = ("k:" + k).getBytes(StandardCharsets.US_ASCII);
        int op = rnd.nextInt(42);
        if (op < 20) {
          p.set(key, value(rnd));
        } else if (op < 35) {
          p.set(key, value(rnd), SetParams.setParams().ex(rnd.nextInt(2, 21)));
        } else {
          p.del(key);
        }
        if (k % 1000 == 999) {
          p.sync();
        }
      }
      p.sync();
    }
  }

  /**
   * Runs unthrottled for {@code warmUpNanos}, then for {@code measureNanos}, and returns the
   * requests per second of the second part.
   */
  double calibrate(long warmUpNanos, long measureNanos) throws Exception {
    long start = System.nanoTime();
    runPhase(0, start + warmUpNanos + measureNanos, false);
    LockSupport.parkNanos(warmUpNanos);
    takeWindow();
    long measureStart = System.nanoTime();
    awaitPhase();
    Histogram measured = takeWindow().latencyMicros();
    return measured.getTotalCount() / ((System.nanoTime() - measureStart) / 1e9);
  }

  /** Starts holding {@code requestsPerSecond} in total until {@code deadlineNanos} ({@link System#nanoTime}). */
  void run(double requestsPerSecond, long deadlineNanos) {
    runPhase(requestsPerSecond, deadlineNanos, true);
  }

  private void runPhase(double requestsPerSecond, long deadlineNanos, boolean throttled) {
    running.clear();
    for (int i = 0; i < clients.size(); i++) {
      int index = i;
      long intervalNanos = throttled ? (long) (1e9 * clients.size() / requestsPerSecond) : 0;
      SplittableRandom rnd = new SplittableRandom(seed * 31 + i * 7919L + System.nanoTime());
      running.add(threads.submit(() -> loop(index, rnd, intervalNanos, deadlineNanos)));
    }
  }

  /** Waits for the running phase to reach its deadline. */
  void awaitPhase() throws Exception {
    for (Future<?> f : running) {
      f.get();
    }
  }

  private void loop(int index, SplittableRandom rnd, long intervalNanos, long deadlineNanos) {
    long next = System.nanoTime() + (intervalNanos == 0 ? 0 : rnd.nextLong(intervalNanos));
    while (true) {
      long now = System.nanoTime();
      if (now >= deadlineNanos) {
        return;
      }
      if (intervalNanos > 0) {
        if (next > now) {
          LockSupport.parkNanos(Math.min(next, deadlineNanos) - now);
          continue;
        }
        if (now - next > TimeUnit.SECONDS.toNanos(1)) {
          next = now;
        }
        next += intervalNanos;
      }
      long sent = System.nanoTime();
      try {
        request(clients.get(index), rnd);
        latency.recordValue(Math.max(1, (System.nanoTime() - sent) / 1000));
      } catch (JedisException e) {
        errors.increment();
        if (errorSamples.size() < 20) {
          errorSamples.add(e.toString());
        }
        if (e instanceof JedisConnectionException) {
          clients.get(index).close();
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
          try {
            clients.set(index, connect());
          } catch (JedisException again) {
            errors.increment();
          }
        }
      }
    }
  }

  private void request(Jedis j, SplittableRandom rnd) {
    double p = rnd.nextDouble();
    if (p < 0.35) {
      j.get(key(rnd));
    } else if (p < 0.48) {
      byte[][] ks = new byte[MGET_KEYS][];
      for (int i = 0; i < ks.length; i++) {
        ks[i] = key(rnd);
      }
      j.mget(ks);
    } else if (p < 0.68) {
      j.set(key(rnd), value(rnd));
    } else if (p < 0.83) {
      j.set(key(rnd), value(rnd), SetParams.setParams().ex(rnd.nextInt(2, 21)));
    } else if (p < 0.90) {
      j.del(key(rnd));
    } else {
      j.incr(("c:" + rnd.nextInt(COUNTERS)).getBytes(StandardCharsets.US_ASCII));
    }
  }

  private byte[] key(SplittableRandom rnd) {
    return ("k:" + rnd.nextInt(keys)).getBytes(StandardCharsets.US_ASCII);
  }

  private byte[] value(SplittableRandom rnd) {
    int len = rnd.nextInt(MIN_VALUE, MAX_VALUE + 1);
    int from = rnd.nextInt(valuePool.length - len);
    byte[] v = new byte[len];
    System.arraycopy(valuePool, from, v, 0, len);
    return v;
  }

  /** The latencies and failures since the previous call. */
  Window takeWindow() {
    long failed = errors.sumThenReset();
    return new Window(latency.getIntervalHistogram(), failed);
  }

  /** Requests that failed and were not yet taken by {@link #takeWindow}. */
  long errors() {
    return errors.sum();
  }

  /** The first (up to 20) failures' descriptions. */
  List<String> errorSamples() {
    synchronized (errorSamples) {
      return List.copyOf(errorSamples);
    }
  }

  /** One window's latencies (µs) and failed requests. */
  record Window(Histogram latencyMicros, long errors) {}

  @Override
  public void close() {
    threads.shutdownNow();
    for (Jedis j : clients) {
      j.close();
    }
  }
}
