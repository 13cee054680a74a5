package org.kvstore.server.warmup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.kvstore.server.KVStoreServer;
import org.kvstore.server.ServerConfig;
import org.kvstore.server.warmup.WarmupReport.EndedBy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code kvstore-server} command's warm-up: before the ports open, it sends the server's own
 * request paths (RESP decoding, command dispatch, the engine's reads and writes, reply encoding,
 * the HTTP and Thrift handlers) pipelined traffic for up to {@code warmup-duration} seconds, so that
 * the JIT has compiled them when the first clients arrive (docs/decisions/0033-server-warm-up.md).
 *
 * <pre>
 *   sweep stale scratch dirs ──▶ scratch dir in java.io.tmpdir ──▶ scratch server (same engine,
 *   durability, threads; loopback, ephemeral ports) ──▶ clients until the duration has passed, the
 *   JIT has settled or a stop is asked ──▶ close scratch server ──▶ delete scratch dir
 * </pre>
 *
 * <p>The requests go to a separate store in a temporary directory, never to the data directory:
 * nothing of the warm-up reaches the user's log, catalog or tables, and a crash during it leaves
 * only the scratch directory, which the next warm-up deletes ({@link ScratchDirectory}). The
 * warm-up is an optimization: a failure in it is logged and the server starts without it.
 *
 * <p>Thread safety: {@link #run} may be called from any thread; it blocks until the warm-up ends.
 */
public final class ServerWarmup {
  private static final Logger LOG = LoggerFactory.getLogger(ServerWarmup.class);
  /** Pipelining RESP clients, each on its own thread and connection. */
  static final int RESP_CLIENTS = 2;
  /** The scratch store's memtables and block cache: enough for flushes to happen, little heap. */
  private static final String SCRATCH_WRITE_BUFFER = "32mb";
  private static final String SCRATCH_BLOCK_CACHE = "16mb";
  private static final String SCRATCH_CHECKPOINT_LOG = "16mb";
  private static final long POLL_MILLIS = 100;

  private ServerWarmup() {}

  /**
   * Runs the warm-up {@code config} asks for, with its scratch directory in {@code java.io.tmpdir}.
   * Never throws for a failure of the warm-up itself: it logs it and returns.
   *
   * @param stopRequested polled while the warm-up runs; true ends it
   * @return what it did, or null when it failed
   */
  public static WarmupReport run(ServerConfig config, BooleanSupplier stopRequested) {
    return run(config, Path.of(System.getProperty("java.io.tmpdir")), stopRequested, true);
  }

  /**
   * {@link #run(ServerConfig, BooleanSupplier)} with the scratch directory made in {@code scratchParent};
   * without {@code endWhenSettled} only the duration or a stop ends it.
   */
  static WarmupReport run(ServerConfig config, Path scratchParent, BooleanSupplier stopRequested,
      boolean endWhenSettled) {
    if (config.warmupSeconds() == 0) {
      LOG.debug("warm-up off (warmup-duration 0)");
      return WarmupReport.skipped(EndedBy.OFF);
    }
    if (config.respPort() < 0 && config.httpPort() < 0 && config.thriftPort() < 0) {
      LOG.debug("warm-up skipped: no protocol port is on");
      return WarmupReport.skipped(EndedBy.NO_PROTOCOL);
    }
    LOG.info("warm-up: at most {} s of requests to a scratch store before the ports open", config.warmupSeconds());
    try {
      WarmupReport report = exercise(config, scratchParent, stopRequested, endWhenSettled);
      LOG.info("warm-up: {}", report);
      return report;
    } catch (RuntimeException e) {
      // Without the warm-up the server is correct, only slower for its first seconds: start it.
      LOG.warn("warm-up failed, starting without it: {}", e.toString(), e);
      return null;
    }
  }

  private static WarmupReport exercise(ServerConfig config, Path scratchParent, BooleanSupplier stopRequested,
      boolean endWhenSettled) {
    long start = System.nanoTime();
    Duration duration = Duration.ofSeconds(config.warmupSeconds());
    Map<String, Long> requests;
    long exercisedNanos;
    long compiledMillis;
    EndedBy endedBy;
    try (ScratchDirectory dir = ScratchDirectory.create(scratchParent);
        KVStoreServer scratch = KVStoreServer.startQuietly(scratchConfig(config, dir.path()))) {
      List<Exerciser> exercisers = new ArrayList<>();
      try {
        connect(scratch, exercisers);
        Map<String, LongAdder> counts = new LinkedHashMap<>();
        for (Exerciser e : exercisers) {
          counts.computeIfAbsent(e.protocol(), p -> new LongAdder());
        }
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        long exerciseStart = System.nanoTime();
        CompilationWatch jit = new CompilationWatch(exerciseStart);
        for (int i = 0; i < exercisers.size(); i++) {
          Exerciser e = exercisers.get(i);
          LongAdder count = counts.get(e.protocol());
          Thread t = new Thread(() -> drive(e, count, done, failure), "kv-warmup-" + e.protocol() + "-" + i);
          t.setDaemon(true);
          threads.add(t);
          t.start();
        }
        endedBy = await(exerciseStart + duration.toNanos(), endWhenSettled ? jit : null, done, stopRequested);
        done.set(true);
        for (Thread t : threads) {
          joinUninterruptibly(t);
        }
        exercisedNanos = System.nanoTime() - exerciseStart;
        compiledMillis = jit.compiledMillisSinceStart();
        Throwable failed = failure.get();
        if (failed != null) {
          throw new WarmupException("a client of the scratch server failed: " + failed.getMessage(), failed);
        }
        Map<String, Long> sent = new LinkedHashMap<>();
        counts.forEach((p, n) -> sent.put(p, n.sum()));
        requests = sent;
      } finally {
        for (Exerciser e : exercisers) {
          e.close();
        }
      }
    }
    return new WarmupReport(requests, Duration.ofNanos(exercisedNanos), Duration.ofNanos(System.nanoTime() - start),
        compiledMillis, endedBy);
  }

  /** The user's settings for a scratch server: its directory, loopback, any free ports, small memory. */
  static ServerConfig scratchConfig(ServerConfig config, Path dir) {
    ServerConfig.Builder b = ServerConfig.builder();
    for (var s : ServerConfig.SETTINGS) {
      copy(config, b, s);
    }
    return b.set("data-dir", dir.toString())
        .set("bind", "127.0.0.1")
        .set("resp-port", config.respPort() < 0 ? "-1" : "0")
        .set("http-port", config.httpPort() < 0 ? "-1" : "0")
        .set("thrift-port", config.thriftPort() < 0 ? "-1" : "0")
        .set(ServerConfig.PASSWORD, null)
        .set("write-buffer-budget", SCRATCH_WRITE_BUFFER)
        .set("block-cache-size", SCRATCH_BLOCK_CACHE)
        .set("checkpoint-log-size", SCRATCH_CHECKPOINT_LOG)
        .set("warmup-duration", "0")
        .build();
  }

  private static <T> void copy(ServerConfig from, ServerConfig.Builder to, org.kvstore.server.Setting<T> s) {
    to.set(s, from.get(s));
  }

  private static void connect(KVStoreServer scratch, List<Exerciser> exercisers) {
    long seed = System.nanoTime();
    try {
      if (scratch.respPort() >= 0) {
        for (int i = 0; i < RESP_CLIENTS; i++) {
          exercisers.add(new RespExerciser(loopback(scratch.respPort()), seed + i));
        }
      }
      if (scratch.httpPort() >= 0) {
        exercisers.add(new HttpExerciser(loopback(scratch.httpPort()), seed + 100));
      }
      if (scratch.thriftPort() >= 0) {
        exercisers.add(new ThriftExerciser(loopback(scratch.thriftPort()), seed + 200));
      }
    } catch (IOException e) {
      throw new WarmupException("cannot connect to the scratch server: " + e, e);
    }
  }

  private static InetSocketAddress loopback(int port) {
    return new InetSocketAddress("127.0.0.1", port);
  }

  private static void drive(Exerciser e, LongAdder count, AtomicBoolean done, AtomicReference<Throwable> failure) {
    try {
      while (!done.get()) {
        count.add(e.round());
      }
    } catch (IOException | RuntimeException ex) {
      failure.compareAndSet(null, new WarmupException(e.protocol() + ": " + ex.getMessage(), ex));
      done.set(true);
    }
  }

  /**
   * Waits until the deadline, a settled JIT (unless {@code jit} is null), a stop request or a
   * client's failure; returns which.
   */
  private static EndedBy await(long deadlineNanos, CompilationWatch jit, AtomicBoolean done, BooleanSupplier stop) {
    while (true) {
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return EndedBy.STOP;
      }
      long now = System.nanoTime();
      if (done.get()) {
        return EndedBy.DURATION; // a client failed; the caller reports that failure instead
      }
      if (stop.getAsBoolean()) {
        return EndedBy.STOP;
      }
      if (now - deadlineNanos >= 0) {
        return EndedBy.DURATION;
      }
      if (jit != null && jit.settled(now)) {
        return EndedBy.COMPILATION_SETTLED;
      }
    }
  }

  private static void joinUninterruptibly(Thread t) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          t.join(TimeUnit.SECONDS.toMillis(60));
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
