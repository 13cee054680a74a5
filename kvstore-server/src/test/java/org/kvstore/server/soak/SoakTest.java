package org.kvstore.server.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.TestScale;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Hours of load (RELIABILITY.md T13): the server as a child JVM with a fixed 512 MiB heap, under the
 * {@link MixedWorkload} held at 70 % of the throughput a short calibration measured, with a 1 MiB
 * memtable (a flush every few seconds, and compactions through several levels), a 32 MiB block cache,
 * a checkpoint every 10 s, and 15 % of the writes expiring within 20 s. Every one of the 200,000
 * keys (many memtables' worth) is written once before the calibration, so the data starts near its
 * steady size. Every 10 s the {@link ServerProbe} samples the
 * process and the window's latencies are taken; the {@link SoakAnalysis} rules must hold after
 * warm-up, the server must stay up, log no error and stop cleanly. The samples, a plot and a summary
 * go to {@code target/soak/}.
 *
 * <p>3 minutes in the default build (a minute of warm-up, two checked), an hour under {@code -Psoak}; {@code -Dkvstore.soak.duration=PT3H}
 * (an ISO-8601 duration) sets any other length.
 */
class SoakTest {
  private static final long MIB = 1 << 20;
  private static final long CHECKPOINT_LOG_BYTES = 32 * MIB;
  /** Smaller than the data, so the cache is full and evicting by the end of warm-up. */
  private static final long BLOCK_CACHE_BYTES = 32 * MIB;
  private static final int CONNECTIONS = 8;
  private static final int KEYS = 200_000;
  private static final double LOAD_FRACTION = 0.7;
  private static final Duration WINDOW = Duration.ofSeconds(10);
  private static final List<String> JVM_OPTIONS = List.of("-Xms512m", "-Xmx512m", "-XX:+UseParallelGC",
      "-XX:+AlwaysPreTouch");

  @TempDir Path dir;

  static Duration duration() {
    String given = System.getProperty("kvstore.soak.duration", "").trim();
    if (!given.isEmpty()) {
      return Duration.parse(given);
    }
    return TestScale.current() == TestScale.SOAK ? Duration.ofHours(1) : Duration.ofMinutes(3);
  }

  @Test
  void mixedLoadAtSeventyPercent_resourcesStayFlatAfterWarmUp() throws Exception {
    Duration run = duration();
    long seed = Seeds.seed("SoakTest");
    Path data = dir.resolve("data");
    Path out = Path.of("target", "soak");
    Files.createDirectories(out);
    List<String> args = List.of("--data-dir", data.toString(), "--resp-port", "0", "--http-port", "0",
        "--thrift-port", "-1", "--checkpoint-interval", "10", "--checkpoint-log-size", CHECKPOINT_LOG_BYTES + "",
        "--block-cache-size", BLOCK_CACHE_BYTES + "");

    List<SoakSample> samples = new ArrayList<>();
    List<String> errorSamples;
    Exception samplingFailure = null;
    double maxThroughput;
    Map<String, Double> metricsBefore;
    Map<String, Double> metricsAfter = Map.of();
    List<Long> segmentsBefore;
    List<Long> segmentsAfter = List.of();
    boolean aliveAtEnd;
    int exitCode;
    List<String> log;
    SoakServer server = SoakServer.launch(JVM_OPTIONS, args);
    try {
      int[] ports = server.awaitPorts();
      createTable(ports[0]);
      try (MixedWorkload load = new MixedWorkload(ports[0], CONNECTIONS, KEYS, seed, List.of("soak", "t"));
          ServerProbe probe = new ServerProbe(server.pid(), ports[1], data, "soak", "t")) {
        load.prefill();
        maxThroughput = load.calibrate(TimeUnit.SECONDS.toNanos(5), TimeUnit.SECONDS.toNanos(10));
        load.takeWindow();
        metricsBefore = probe.scrape();
        segmentsBefore = probe.walSegments();
        long start = System.nanoTime();
        long windows = run.toNanos() / WINDOW.toNanos();
        long end = start + windows * WINDOW.toNanos();
        load.run(LOAD_FRACTION * maxThroughput, end);
        for (long k = 1; k <= windows; k++) {
          long windowEnd = start + k * WINDOW.toNanos();
          for (long now = System.nanoTime(); now < windowEnd; now = System.nanoTime()) {
            LockSupport.parkNanos(windowEnd - now);
          }
          MixedWorkload.Window w = load.takeWindow();
          try {
            ServerProbe.Reading r = probe.read();
            samples.add(new SoakSample(k * WINDOW.toSeconds(), WINDOW.toSeconds(), r.heapAfterGcBytes(),
                r.gcMillis(), r.rssBytes(), r.jvmDirectBytes(), r.nettyDirectBytes(), r.openFds(), r.storeFileFds(), r.threads(),
                r.dataDirBytes(), r.walBytes(), r.memtableBytes(), r.blockCacheBytes(), r.spaceAmplification(),
                w.errors(), w.latencyMicros()));
          } catch (Exception e) {
            samplingFailure = e;
            break;
          }
        }
        load.awaitPhase();
        if (samplingFailure == null) {
          metricsAfter = probe.scrape();
          segmentsAfter = probe.walSegments();
        }
        errorSamples = load.errorSamples();
      }
      aliveAtEnd = server.isAlive();
      exitCode = aliveAtEnd ? server.stop() : -1;
      log = new ArrayList<>(server.stdout());
      log.addAll(server.stderr());
    } finally {
      server.close();
    }

    double runSeconds = run.toNanos() / WINDOW.toNanos() * WINDOW.toSeconds();
    SoakAnalysis.Result result = SoakAnalysis.analyse(samples, runSeconds, SoakAnalysis.Targets.t13(
        CHECKPOINT_LOG_BYTES));
    List<String> errorLines = log.stream()
        .filter(l -> l.contains(" ERROR ") || l.contains("LEAK") || l.contains("Exception")).toList();
    List<String> warnLines = log.stream().filter(l -> l.contains(" WARN ")).toList();
    long flushes = delta(metricsBefore, metricsAfter, "flushes");
    long compactions = delta(metricsBefore, metricsAfter, "compactions");
    long expired = (long) (ServerProbe.sum(metricsAfter, "kv_expired_keys_total")
        - ServerProbe.sum(metricsBefore, "kv_expired_keys_total"));
    long segmentsDeleted = segmentsAfter.isEmpty() || segmentsBefore.isEmpty() ? 0
        : segmentsAfter.get(0) - segmentsBefore.get(0);
    long segmentsWritten = segmentsAfter.isEmpty() || segmentsBefore.isEmpty() ? 0
        : segmentsAfter.get(segmentsAfter.size() - 1) - segmentsBefore.get(segmentsBefore.size() - 1);

    String title = "Soak " + run.toMinutes() + " min";
    SoakReport.writeCsv(samples, out.resolve("samples.csv"));
    if (!samples.isEmpty()) {
      SoakReport.writePng(samples, result.warmUpSeconds(), title, out.resolve("soak.png"));
    }
    double meanThroughput = samples.stream().mapToLong(SoakSample::requests).sum() / Math.max(1, runSeconds);
    long maxGcMillis = samples.stream().mapToLong(SoakSample::gcMillis).max().orElse(0);
    StringBuilder summary = new StringBuilder();
    summary.append(String.format(Locale.ROOT, "%s, seed %d: calibrated maximum %,.0f requests/s, target %,.0f/s"
            + " (%.0f %%), achieved %,.0f/s on average; warm-up %.0f s%n", title, seed, maxThroughput,
        LOAD_FRACTION * maxThroughput, LOAD_FRACTION * 100, meanThroughput, result.warmUpSeconds()));
    summary.append(String.format(Locale.ROOT, "background work during the run: %d memtable flushes, %d compactions,"
            + " %d keys removed by active expiry, %d log segments written and %d deleted by checkpoints;"
            + " forced full GC per sample at most %d ms%n", flushes, compactions, expired, segmentsWritten,
        segmentsDeleted, maxGcMillis));
    summary.append(String.format(Locale.ROOT, "server log: %d error lines, %d warnings%s%n", errorLines.size(),
        warnLines.size(), warnLines.isEmpty() ? "" : " (first: " + warnLines.get(0) + ")"));
    summary.append('\n').append(result.trendTable()).append('\n');
    for (SoakAnalysis.Check c : result.checks()) {
      summary.append("- ").append(c).append('\n');
    }
    Files.writeString(out.resolve("summary.md"), summary, StandardCharsets.UTF_8);
    System.out.println("SoakTest: " + summary);

    assertThat(samplingFailure).as("sampling the server").isNull();
    assertThat(aliveAtEnd).as("server alive after the run; log: %s", tail(log)).isTrue();
    assertThat(exitCode).as("exit code after SIGTERM; log: %s", tail(log)).isZero();
    assertThat(errorSamples).as("failed requests").isEmpty();
    assertThat(errorLines).as("server log errors").isEmpty();
    assertThat(samples).as("samples").hasSize((int) (runSeconds / WINDOW.toSeconds()));
    assertThat(result.failures()).as(summary.toString()).isEmpty();
    long minutes = Math.max(1, run.toMinutes());
    assertThat(flushes).as("memtable flushes").isGreaterThanOrEqualTo(10 * minutes);
    assertThat(compactions).as("compactions").isGreaterThanOrEqualTo(2 * minutes);
    assertThat(expired).as("keys removed by active expiry").isGreaterThanOrEqualTo(1000 * minutes);
    assertThat(segmentsDeleted).as("log segments deleted by checkpoints").isPositive();
  }

  private static void createTable(int port) {
    try (Jedis j = new Jedis("127.0.0.1", port, 10_000)) {
      // A 1 MiB memtable and small levels: flushes and compactions many times a minute.
      j.sendCommand(() -> SafeEncoder.encode("KV.CREATE"), "soak", "t", "lsm", "memtable.size",
          Long.toString(MIB), "level1.max.size", Long.toString(8 * MIB), "target.file.size", Long.toString(2 * MIB));
    }
  }

  private static long delta(Map<String, Double> before, Map<String, Double> after, String stat) {
    String label = "stat=\"" + stat + "\"";
    return (long) (ServerProbe.sum(after, "kv_engine_stat", label, "db=\"soak\"")
        - ServerProbe.sum(before, "kv_engine_stat", label, "db=\"soak\""));
  }

  private static List<String> tail(List<String> log) {
    return log.subList(Math.max(0, log.size() - 30), log.size());
  }
}
