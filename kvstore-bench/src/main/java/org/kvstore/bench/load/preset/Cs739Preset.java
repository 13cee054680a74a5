package org.kvstore.bench.load.preset;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.kvstore.Durability;
import org.kvstore.bench.load.driver.Driver;
import org.kvstore.bench.load.report.Chart;
import org.kvstore.bench.load.report.Numbers;
import org.kvstore.bench.load.report.Report;
import org.kvstore.bench.load.report.ResultRow;
import org.kvstore.bench.load.report.ResultTable;
import org.kvstore.bench.load.report.Section;
import org.kvstore.bench.load.report.SeedFigures;
import org.kvstore.bench.load.report.Summaries;
import org.kvstore.bench.load.run.Measurement;
import org.kvstore.bench.load.server.ChildServer;
import org.kvstore.bench.load.workload.KeyDistribution;
import org.kvstore.bench.load.workload.KeyFormat;
import org.kvstore.bench.load.workload.OperationMix;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.Workload;

/**
 * The CS739 strongly durable store's experiments (seed 003), against kvstore-server (a child JVM,
 * durability {@code sync} by default: a write is acknowledged after its log fsync, as the seed's
 * log per set) over RESP, HTTP and Thrift.
 * <ul>
 *   <li>Exp1: 1 GB of data as values of 512 B, 4 KiB, 512 KiB, 1 MiB and 4 MiB; one client;
 *       read-only and 50/50 runs of three minutes; latency and throughput.
 *   <li>Exp2: cold start of 1M values of 4 KiB, after a clean stop (SIGTERM) and after kill -9
 *       (SIGKILL), as the time from the server's spawn until the first GET returns a value.
 *   <li>Exp3: 1M keys of 4 KiB; 1 to 512 clients; read-only and 50/50; latency against throughput.
 * </ul>
 *
 * <p>Thread safety: one run at a time.
 */
public final class Cs739Preset implements Preset {
  public static final long DATA_BYTES = 1L << 30;
  public static final List<Integer> VALUE_SIZES = List.of(512, 4096, 512 << 10, 1 << 20, 4 << 20);
  public static final long RECORDS = 1_000_000;
  public static final List<Integer> CLIENTS = List.of(1, 2, 4, 8, 16, 32, 64, 128, 256, 512);
  public static final Duration DURATION = Duration.ofMinutes(3);
  public static final List<String> PROTOCOLS = List.of("resp", "http", "thrift");
  public static final List<String> EXPERIMENTS = List.of("exp1", "exp2", "exp3");
  private static final int KEY_BYTES = 16;
  private static final String READ_ONLY = "get=1";
  private static final String HALF = "get=0.5,put=0.5";

  private final List<String> experiments;
  private final List<String> protocols;
  private final Durability durability;
  private final String heap;

  public Cs739Preset(List<String> experiments, List<String> protocols, Durability durability, String heap) {
    this.experiments = experiments == null ? EXPERIMENTS : List.copyOf(experiments);
    this.protocols = protocols == null ? PROTOCOLS : List.copyOf(protocols);
    this.durability = durability == null ? Durability.SYNC : durability;
    this.heap = heap == null ? "2g" : heap;
    for (String e : this.experiments) {
      if (!EXPERIMENTS.contains(e)) {
        throw new IllegalArgumentException("experiment '" + e + "' is not one of " + String.join(", ", EXPERIMENTS));
      }
    }
  }

  @Override
  public String name() {
    return "cs739";
  }

  @Override
  public String title() {
    return "CS739's experiments: value size, cold start and clients, over RESP, HTTP and Thrift";
  }

  @Override
  public void run(PresetContext ctx, Report report) throws Exception {
    report.intro(String.format(Locale.ROOT, "kvstore-server runs as a child JVM (heap %s, durability %s) on loopback;"
        + " the seed's client was on another machine of a LAN (0.133 ms round trip). Repetitions: %d.", heap,
        durability.name().toLowerCase(Locale.ROOT), ctx.repeat()));
    Map<String, ResultTable> seed = SeedFigures.load("cs739");
    if (experiments.contains("exp1")) {
      exp1(ctx, report, seed.get("exp1"));
    }
    if (experiments.contains("exp2")) {
      exp2(ctx, report, seed.get("exp2"));
    }
    if (experiments.contains("exp3")) {
      exp3(ctx, report, seed.get("exp3"));
    }
  }

  private ChildServer start(PresetContext ctx, String name, byte[] readyKey) throws Exception {
    return ChildServer.start(ctx.freshDir(name), durability, null, heap, ctx.scratch().resolve(name + ".log"), readyKey);
  }

  private ChildServer restart(PresetContext ctx, String name, byte[] readyKey) throws Exception {
    return ChildServer.start(ctx.scratch().resolve(name), durability, null, heap, ctx.scratch().resolve(name + ".log"),
        readyKey);
  }

  private void exp1(PresetContext ctx, Report report, ResultTable seed) throws Exception {
    long data = ctx.scaled(DATA_BYTES, 4 << 20);
    Duration duration = ctx.durationOr(DURATION);
    List<ResultRow> rows = new ArrayList<>();
    try (ChildServer server = start(ctx, "cs739-exp1", null)) {
      for (int size : VALUE_SIZES) {
        long keys = Math.max(1, data / size);
        Workload base = Workload.builder("cs739-exp1").records(keys).keyBytes(KEY_BYTES).valueBytes(size)
            .distribution(KeyDistribution.UNIFORM).threads(1).durability(durability).build();
        try (Driver loader = ServerDrivers.open("resp", server)) {
          ctx.runner().preload(loader, base);
        }
        for (String protocol : protocols) {
          Map<String, String> params = new LinkedHashMap<>();
          params.put("value", Integer.toString(size));
          params.put("keys", Long.toString(keys));
          try (Driver d = ServerDrivers.open(protocol, server)) {
            rows.addAll(measure(ctx, d, "cs739-exp1-read-only", params,
                base.toBuilder().mix(OperationMix.parse(READ_ONLY)).build(), duration));
            rows.addAll(measure(ctx, d, "cs739-exp1-50-50", params,
                base.toBuilder().mix(OperationMix.parse(HALF)).build(), duration));
          }
        }
      }
    }
    report.rows(rows);
    Section s = new Section("Exp1: value size (" + String.format("%,d", data) + " bytes of data, one client, "
        + duration.toSeconds() + " s per run)");
    for (String protocol : protocols) {
      List<List<String>> cells = new ArrayList<>();
      for (int size : VALUE_SIZES) {
        ResultRow ro = find(rows, "cs739-exp1-read-only", protocol, "value", Integer.toString(size), "get");
        ResultRow rr = find(rows, "cs739-exp1-50-50", protocol, "value", Integer.toString(size), "get");
        ResultRow rw = find(rows, "cs739-exp1-50-50", protocol, "value", Integer.toString(size), "put");
        ResultRow all = find(rows, "cs739-exp1-50-50", protocol, "value", Integer.toString(size), "all");
        cells.add(List.of(Integer.toString(size), ro.param("keys"), Numbers.millis(ro.meanMs()),
            Numbers.rate(ro.opsPerSecond()), Numbers.millis(rr.meanMs()), Numbers.millis(rw.meanMs()),
            Numbers.rate(all.opsPerSecond())));
      }
      s.table(new ResultTable(protocol, List.of("value bytes", "keys", "read-only latency ms", "read-only ops/s",
          "50/50 read ms", "50/50 write ms", "50/50 ops/s"), cells, "Latencies are means."));
    }
    s.seedTable(seed);
    report.section(s);
  }

  private void exp2(PresetContext ctx, Report report, ResultTable seed) throws Exception {
    long records = ctx.scaled(RECORDS, 100);
    KeyFormat keys = new KeyFormat(KEY_BYTES);
    byte[] probe = keys.key(records / 2);
    List<Double> clean = new ArrayList<>();
    List<Double> killed = new ArrayList<>();
    Workload w = Workload.builder("cs739-exp2").records(records).keyBytes(KEY_BYTES).valueBytes(4096).threads(8)
        .durability(durability).build();
    try (ChildServer first = start(ctx, "cs739-exp2", null)) {
      try (Driver loader = ServerDrivers.open("resp", first)) {
        ctx.runner().preload(loader, w);
      }
    }
    for (int r = 0; r < ctx.repeat(); r++) {
      ChildServer afterStop = restart(ctx, "cs739-exp2", probe);
      clean.add(afterStop.startup().toNanos() / 1e9);
      // A tenth of the values rewritten since the checkpoint of the clean stop: the log the restart replays.
      try (Driver writer = ServerDrivers.open("resp", afterStop)) {
        ctx.runner().measure(writer, w.toBuilder().name("cs739-exp2-rewrite").mix(OperationMix.parse("put=1"))
            .build(), RunBounds.ops(Math.max(1, records / 10), 0));
      }
      afterStop.kill();
      ChildServer afterKill = restart(ctx, "cs739-exp2", probe);
      killed.add(afterKill.startup().toNanos() / 1e9);
      afterKill.close();
      ctx.log().printf(Locale.ROOT, "  cs739 exp2: cold start %.3f s after a clean stop, %.3f s after kill -9%n",
          clean.get(r), killed.get(r));
    }
    List<ResultRow> rows = List.of(startRow("clean stop", records, clean), startRow("kill -9", records, killed));
    report.rows(rows);
    Section s = new Section("Exp2: cold start of " + String.format("%,d", records) + " values of 4 KiB");
    s.text("From the spawn of the server's JVM until the first GET (over RESP) of a stored key returns its value. "
        + "The clean case follows a SIGTERM stop (the server checkpoints and closes); the kill -9 case follows a "
        + "SIGKILL of the server child after it rewrote a tenth of the values, so the restart replays them from "
        + "the log.");
    List<List<String>> cells = new ArrayList<>();
    for (ResultRow r : rows) {
      cells.add(List.of(r.param("case"), Numbers.seconds(r.seconds())));
    }
    s.table(new ResultTable("cold start", List.of("case", "cold start s"), cells,
        ctx.repeat() > 1 ? "Median of " + ctx.repeat() + " restarts." : ""));
    s.seedTable(seed);
    report.section(s);
  }

  private static ResultRow startRow(String how, long records, List<Double> seconds) {
    double[] s = seconds.stream().mapToDouble(Double::doubleValue).toArray();
    double median = Summaries.median(s);
    Map<String, String> params = new LinkedHashMap<>();
    params.put("case", how);
    params.put("records", Long.toString(records));
    return new ResultRow("cs739-exp2", "kvstore", params, "cold-start", s.length, 1, median, Double.NaN, Double.NaN,
        Double.NaN, median * 1000, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0);
  }

  private void exp3(PresetContext ctx, Report report, ResultTable seed) throws Exception {
    long records = ctx.scaled(RECORDS, 100);
    Duration duration = ctx.durationOr(DURATION);
    List<Integer> clients = ctx.threadsOr(CLIENTS);
    List<ResultRow> rows = new ArrayList<>();
    try (ChildServer server = start(ctx, "cs739-exp3", null)) {
      Workload base = Workload.builder("cs739-exp3").records(records).keyBytes(KEY_BYTES).valueBytes(4096)
          .distribution(KeyDistribution.UNIFORM).durability(durability).build();
      try (Driver loader = ServerDrivers.open("resp", server)) {
        ctx.runner().preload(loader, base.toBuilder().threads(8).build());
      }
      for (String protocol : protocols) {
        try (Driver d = ServerDrivers.open(protocol, server)) {
          for (int c : clients) {
            Map<String, String> params = new LinkedHashMap<>();
            params.put("clients", Integer.toString(c));
            rows.addAll(measure(ctx, d, "cs739-exp3-read-only", params,
                base.toBuilder().threads(c).mix(OperationMix.parse(READ_ONLY)).build(), duration));
            rows.addAll(measure(ctx, d, "cs739-exp3-50-50", params,
                base.toBuilder().threads(c).mix(OperationMix.parse(HALF)).build(), duration));
          }
        }
      }
    }
    report.rows(rows);
    Section s = new Section("Exp3: clients (" + String.format("%,d", records) + " keys of 4 KiB, "
        + duration.toSeconds() + " s per run)");
    for (String protocol : protocols) {
      List<List<String>> cells = new ArrayList<>();
      for (int c : clients) {
        String cs = Integer.toString(c);
        ResultRow ro = find(rows, "cs739-exp3-read-only", protocol, "clients", cs, "get");
        ResultRow rr = find(rows, "cs739-exp3-50-50", protocol, "clients", cs, "get");
        ResultRow rw = find(rows, "cs739-exp3-50-50", protocol, "clients", cs, "put");
        ResultRow all = find(rows, "cs739-exp3-50-50", protocol, "clients", cs, "all");
        cells.add(List.of(cs, Numbers.millis(ro.meanMs()), Numbers.rate(ro.opsPerSecond()), Numbers.millis(rr.meanMs()),
            Numbers.millis(rw.meanMs()), Numbers.rate(all.opsPerSecond())));
      }
      s.table(new ResultTable(protocol, List.of("clients", "read-only latency ms", "read-only ops/s", "50/50 read ms",
          "50/50 write ms", "50/50 ops/s"), cells, "Latencies are means."));
    }
    s.chart(latencyAgainstThroughput("cs739-exp3-read-only", "read-only: latency against throughput (dashed: the seed's)",
        rows, "get", Chart.Series.fromSeed("gRPC", seed, "read-only ops/s", "read-only latency_ms")));
    s.chart(latencyAgainstThroughput("cs739-exp3-50-50", "50% read 50% write: read latency against throughput "
        + "(dashed: the seed's)", rows, "get", Chart.Series.fromSeed("gRPC", seed, "50/50 ops/s", "50/50 read_ms")));
    s.seedTable(seed);
    report.section(s);
  }

  /** Per protocol, the mean latency of {@code op} against the run's throughput (all operations). */
  private Chart latencyAgainstThroughput(String experiment, String title, List<ResultRow> rows, String op,
      Chart.Series seed) {
    List<Chart.Series> series = new ArrayList<>();
    for (String protocol : protocols) {
      List<ResultRow> mine = rows.stream().filter(r -> r.experiment().equals(experiment) && r.system().equals(protocol)
          && r.op().equals(op)).toList();
      double[] throughput = mine.stream().mapToDouble(r -> find(rows, experiment, protocol, "clients",
          r.param("clients"), rows.stream().anyMatch(a -> a.experiment().equals(experiment) && a.op().equals("all"))
              ? "all" : op).opsPerSecond()).toArray();
      series.add(new Chart.Series(protocol, throughput, mine.stream().mapToDouble(ResultRow::meanMs).toArray()));
    }
    series.add(seed);
    return new Chart(experiment, title, "throughput (ops/s)", "mean latency (ms)", false, series);
  }

  private List<ResultRow> measure(PresetContext ctx, Driver d, String experiment, Map<String, String> params,
      Workload w, Duration duration) throws InterruptedException {
    List<Measurement> ms = new ArrayList<>();
    for (int r = 0; r < ctx.repeat(); r++) {
      ms.add(ctx.runner().measure(d, w, RunBounds.duration(duration, ctx.warmup())));
    }
    return Summaries.rows(experiment, d.name(), params, ms);
  }

  private static ResultRow find(List<ResultRow> rows, String experiment, String system, String key, String value,
      String op) {
    return rows.stream().filter(r -> r.experiment().equals(experiment) && r.system().equals(system)
        && r.param(key).equals(value) && r.op().equals(op)).findFirst()
        .orElseThrow(() -> new IllegalStateException("no row " + experiment + " " + system + " " + key + "=" + value
            + " " + op));
  }
}
