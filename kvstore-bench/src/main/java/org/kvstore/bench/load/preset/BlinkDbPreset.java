package org.kvstore.bench.load.preset;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import org.kvstore.Durability;
import org.kvstore.bench.load.driver.RespDriver;
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
import org.kvstore.bench.load.server.RedisServerProcess;
import org.kvstore.bench.load.server.ServerHandle;
import org.kvstore.bench.load.workload.Op;
import org.kvstore.bench.load.workload.OperationMix;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.Workload;

/**
 * BlinkDB's redis-benchmark matrix (seed 000): SET and GET of 3-byte values at 10, 100 and 1000
 * clients and 10k, 100k and 1M requests, against kvstore-server (a child JVM) and a Redis server
 * started in the same run. The client is redis-benchmark when it is on the PATH (as the seed ran
 * it: one key, no {@code -r}), else our RESP driver with the same key, value and counts.
 *
 * <p>Thread safety: one run at a time.
 */
public final class BlinkDbPreset implements Preset {
  public static final List<Integer> CLIENTS = List.of(10, 100, 1000);
  public static final List<Long> REQUESTS = List.of(10_000L, 100_000L, 1_000_000L);
  static final int VALUE_BYTES = 3;
  /** Fewer requests finish within redis-benchmark's millisecond clock, which then prints "inf" req/s. */
  static final long MIN_REQUESTS = 1000;

  private final boolean useRedisBenchmark;
  private final Durability durability;
  private final String heap;

  /** {@code client}: {@code auto} (redis-benchmark when on the PATH), {@code redis-benchmark} or {@code driver}. */
  public BlinkDbPreset(String client, Durability durability, String heap) {
    String c = client == null ? "auto" : client;
    Optional<Path> tool = RedisServerProcess.onPath("redis-benchmark");
    this.useRedisBenchmark = switch (c) {
      case "auto" -> tool.isPresent();
      case "redis-benchmark" -> {
        if (tool.isEmpty()) {
          throw new IllegalArgumentException("--client redis-benchmark: redis-benchmark is not on the PATH");
        }
        yield true;
      }
      case "driver" -> false;
      default -> throw new IllegalArgumentException("--client must be auto, redis-benchmark or driver, not " + c);
    };
    this.durability = durability == null ? Durability.NONE : durability;
    this.heap = heap == null ? "2g" : heap;
  }

  @Override
  public String name() {
    return "blinkdb";
  }

  @Override
  public String title() {
    return "BlinkDB's redis-benchmark matrix: SET and GET, 10 to 1000 clients, against Redis";
  }

  @Override
  public void run(PresetContext ctx, Report report) throws Exception {
    List<Integer> clients = ctx.threadsOr(CLIENTS);
    List<Long> requests = REQUESTS.stream().map(n -> ctx.scaled(n, MIN_REQUESTS)).distinct().toList();
    List<ResultRow> rows = new ArrayList<>();
    List<String> systems = new ArrayList<>();
    Path log = ctx.scratch().resolve("blinkdb-servers.log");
    try (ServerHandle kv = ChildServer.start(ctx.freshDir("blinkdb-kvstore"), durability, null, heap, log, null)) {
      systems.add("kvstore");
      rows.addAll(matrix(ctx, kv, clients, requests));
    }
    if (RedisServerProcess.onPath("redis-server").isPresent()) {
      try (ServerHandle redis = RedisServerProcess.start(ctx.freshDir("blinkdb-redis"), log)) {
        systems.add("redis");
        rows.addAll(matrix(ctx, redis, clients, requests));
      }
    } else {
      ctx.log().println("  blinkdb: redis-server is not on the PATH; the Redis columns are left out");
      report.intro("Redis was not measured: redis-server is not on the PATH (apt-get install redis-server).");
    }
    report.rows(rows);
    report.intro(String.format(Locale.ROOT, "Client: %s. Every cell: one run of the given requests by the given "
        + "clients (connections), 3-byte values, one key (redis-benchmark's default without -r), kvstore-server "
        + "durability %s, Redis without persistence. Both servers on this machine's loopback.%s",
        useRedisBenchmark ? "redis-benchmark (as the seed)" : "the load generator's RESP driver (redis-benchmark "
            + "is not on the PATH)", durability.name().toLowerCase(Locale.ROOT),
        useRedisBenchmark ? " redis-benchmark prints no p75 or p99.9: they are NaN in the CSV." : ""));
    Map<String, ResultTable> seed = SeedFigures.load("blinkdb");
    for (int c : clients) {
      Section s = new Section(c + " parallel clients");
      for (String op : List.of("set", "get")) {
        List<String> headers = new ArrayList<>(List.of("requests"));
        for (String system : systems) {
          headers.addAll(List.of(system + " req/s", system + " avg ms", system + " total s"));
        }
        if (systems.size() == 2) {
          headers.add("kvstore / redis");
        }
        List<List<String>> cells = new ArrayList<>();
        for (long n : requests) {
          List<String> line = new ArrayList<>(List.of(String.format("%,d", n)));
          double[] rate = new double[systems.size()];
          for (int i = 0; i < systems.size(); i++) {
            ResultRow r = find(rows, systems.get(i), op, c, n);
            rate[i] = r.opsPerSecond();
            line.addAll(List.of(Numbers.rate(r.opsPerSecond()), Numbers.millis(r.meanMs()), Numbers.seconds(r.seconds())));
          }
          if (systems.size() == 2) {
            line.add(Numbers.ratio(rate[0] / rate[1]));
          }
          cells.add(line);
        }
        s.table(new ResultTable(op.toUpperCase(Locale.ROOT) + " operation", headers, cells, ""));
        ResultTable seedTable = seed.get(op + "-" + c);
        if (seedTable != null) {
          s.seedTable(seedTable);
        }
      }
      report.section(s);
    }
    Section chart = new Section("Throughput against clients");
    long most = requests.get(requests.size() - 1);
    List<Chart.Series> series = new ArrayList<>();
    for (String system : systems) {
      for (String op : List.of("set", "get")) {
        List<ResultRow> mine = rows.stream().filter(r -> r.system().equals(system) && r.op().equals(op)
            && r.param("requests").equals(Long.toString(most))).toList();
        series.add(new Chart.Series(system + " " + op.toUpperCase(Locale.ROOT),
            mine.stream().mapToDouble(r -> Double.parseDouble(r.param("clients"))).toArray(),
            mine.stream().mapToDouble(ResultRow::opsPerSecond).toArray()));
      }
    }
    chart.chart(new Chart("blinkdb-ops", String.format("req/s against clients, %,d requests", most), "clients",
        "req/s", true, series));
    report.section(chart);
  }

  private static double median(List<RedisBenchmarkTool.Line> lines, ToDoubleFunction<RedisBenchmarkTool.Line> f) {
    return Summaries.median(lines.stream().mapToDouble(f).toArray());
  }

  private static ResultRow find(List<ResultRow> rows, String system, String op, int clients, long requests) {
    return rows.stream().filter(r -> r.system().equals(system) && r.op().equals(op)
        && r.param("clients").equals(Integer.toString(clients)) && r.param("requests").equals(Long.toString(requests)))
        .findFirst().orElseThrow(() -> new IllegalStateException("no " + system + " " + op + " row for " + clients
            + " clients, " + requests + " requests"));
  }

  private List<ResultRow> matrix(PresetContext ctx, ServerHandle server, List<Integer> clients, List<Long> requests)
      throws Exception {
    List<ResultRow> rows = new ArrayList<>();
    for (int c : clients) {
      for (long n : requests) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("clients", Integer.toString(c));
        params.put("requests", Long.toString(n));
        if (useRedisBenchmark) {
          List<Map<String, RedisBenchmarkTool.Line>> runs = new ArrayList<>();
          for (int r = 0; r < ctx.repeat(); r++) {
            runs.add(RedisBenchmarkTool.run(RedisServerProcess.onPath("redis-benchmark").orElseThrow(),
                server.respPort(), "set,get", n, c, VALUE_BYTES));
          }
          for (String op : List.of("SET", "GET")) {
            List<RedisBenchmarkTool.Line> lines = new ArrayList<>();
            for (Map<String, RedisBenchmarkTool.Line> run : runs) {
              RedisBenchmarkTool.Line l = run.get(op);
              if (l == null) {
                throw new IllegalStateException("redis-benchmark printed no " + op + " line: " + run.keySet());
              }
              lines.add(l);
            }
            double rps = median(lines, RedisBenchmarkTool.Line::rps);
            rows.add(new ResultRow("blinkdb", server.name(), params, op.toLowerCase(Locale.ROOT), lines.size(), n,
                n / rps, rps, lines.stream().mapToDouble(RedisBenchmarkTool.Line::rps).min().orElseThrow(),
                lines.stream().mapToDouble(RedisBenchmarkTool.Line::rps).max().orElseThrow(),
                median(lines, RedisBenchmarkTool.Line::avgMs), median(lines, RedisBenchmarkTool.Line::p50Ms),
                Double.NaN, median(lines, RedisBenchmarkTool.Line::p99Ms), Double.NaN,
                median(lines, RedisBenchmarkTool.Line::maxMs), 0));
            ctx.log().printf(Locale.ROOT, "  blinkdb %s: %d clients, %d requests: %s %.0f req/s%n", server.name(), c,
                n, op, rps);
          }
        } else {
          try (RespDriver d = new RespDriver(ServerHandle.HOST, server.respPort(), server.name())) {
            for (Op op : List.of(Op.PUT, Op.GET)) {
              Workload w = Workload.builder("blinkdb-" + (op == Op.PUT ? "set" : "get")).records(1).keyBytes(16)
                  .valueBytes(VALUE_BYTES).mix(OperationMix.only(op)).threads(c).preload(false).build();
              List<Measurement> ms = new ArrayList<>();
              for (int r = 0; r < ctx.repeat(); r++) {
                ms.add(ctx.runner().measure(d, w, RunBounds.ops(n, 0)));
              }
              for (ResultRow row : Summaries.rows("blinkdb", server.name(), params, ms)) {
                rows.add(new ResultRow(row.experiment(), row.system(), row.params(), op == Op.PUT ? "set" : "get",
                    row.repeats(), row.ops(), row.seconds(), row.opsPerSecond(), row.opsPerSecondMin(),
                    row.opsPerSecondMax(), row.meanMs(), row.p50Ms(), row.p75Ms(), row.p99Ms(), row.p999Ms(),
                    row.maxMs(), row.misses()));
              }
            }
          }
        }
      }
    }
    return rows;
  }
}
