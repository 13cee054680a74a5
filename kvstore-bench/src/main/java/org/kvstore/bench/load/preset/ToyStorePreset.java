package org.kvstore.bench.load.preset;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.kvstore.Durability;
import org.kvstore.bench.load.driver.Driver;
import org.kvstore.bench.load.driver.LocalStores;
import org.kvstore.bench.load.driver.StoreSizes;
import org.kvstore.bench.load.report.Chart;
import org.kvstore.bench.load.report.Numbers;
import org.kvstore.bench.load.report.Report;
import org.kvstore.bench.load.report.ResultRow;
import org.kvstore.bench.load.report.ResultTable;
import org.kvstore.bench.load.report.Section;
import org.kvstore.bench.load.report.SeedFigures;
import org.kvstore.bench.load.report.Summaries;
import org.kvstore.bench.load.run.Measurement;
import org.kvstore.bench.load.workload.KeyDistribution;
import org.kvstore.bench.load.workload.OperationMix;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.Workload;

/**
 * The toy store's load test (seed 001): threads x seconds of writes and reads, first on the memory
 * engine (the baseline), then on a durable engine with each durability mode: {@code none} (no
 * fsync), {@code periodic} (the seed's asynchronous, queued persistence) and {@code sync} (its
 * synchronous one). The report gives total ops/s and the fraction of the in-memory rate each mode
 * keeps.
 *
 * <p>Thread safety: one run at a time.
 */
public final class ToyStorePreset implements Preset {
  public static final long RECORDS = 100_000;
  public static final List<Integer> THREADS = List.of(4);
  public static final Duration DURATION = Duration.ofSeconds(10);
  private static final String MIX = "get=0.5,put=0.5";

  private final String engine;

  public ToyStorePreset(String engine) {
    this.engine = engine == null ? "lsm" : engine;
  }

  @Override
  public String name() {
    return "toystore";
  }

  @Override
  public String title() {
    return "The toy store's load test: memory baseline against each durability mode";
  }

  @Override
  public void run(PresetContext ctx, Report report) throws Exception {
    long records = ctx.scaled(RECORDS, 100);
    Duration duration = ctx.durationOr(DURATION);
    StoreSizes sizes = ctx.sizesOr(StoreSizes.SMALL);
    List<String[]> modes = List.of(new String[] {"memory", "none"}, new String[] {engine, "none"},
        new String[] {engine, "periodic"}, new String[] {engine, "sync"});
    List<ResultRow> rows = new ArrayList<>();
    for (int t : ctx.threadsOr(THREADS)) {
      for (String[] mode : modes) {
        Durability durability = Durability.parse(mode[1]);
        Workload w = Workload.builder("toystore").records(records).keyBytes(16).valueBytes(100)
            .mix(OperationMix.parse(MIX)).distribution(KeyDistribution.UNIFORM).threads(t).durability(durability)
            .build();
        List<Measurement> ms = new ArrayList<>();
        for (int r = 0; r < ctx.repeat(); r++) {
          try (Driver d = LocalStores.open(mode[0], ctx.freshDir("toystore"), durability, sizes)) {
            ctx.runner().preload(d, w);
            ms.add(ctx.runner().measure(d, w, RunBounds.duration(duration, ctx.warmup())));
          }
        }
        Map<String, String> params = new LinkedHashMap<>();
        params.put("threads", Integer.toString(t));
        params.put("durability", mode[1]);
        rows.addAll(Summaries.rows("toystore", mode[0], params, ms));
      }
    }
    report.rows(rows);
    report.intro(String.format(Locale.ROOT, "Each run: %,d records of 100 bytes preloaded, then %s seconds of %s "
        + "(uniform keys) by each thread count, after a %s s warm-up. The baseline is the memory engine; the "
        + "durable runs use the %s engine. Repetitions: %d.", records, duration.toSeconds(), MIX,
        ctx.warmup().toSeconds(), engine, ctx.repeat()));
    Section s = new Section("Throughput and the fraction of the in-memory rate");
    List<List<String>> cells = new ArrayList<>();
    for (ResultRow r : rows) {
      if (!r.op().equals("all")) {
        continue;
      }
      double memory = rows.stream().filter(b -> b.op().equals("all") && b.system().equals("memory")
          && b.param("threads").equals(r.param("threads"))).mapToDouble(ResultRow::opsPerSecond).findFirst()
          .orElse(Double.NaN);
      int threads = Integer.parseInt(r.param("threads"));
      List<String> c = new ArrayList<>(List.of(r.system(), r.param("durability"), r.param("threads"),
          Long.toString(r.ops()), Numbers.seconds(r.seconds()), Numbers.rate(r.opsPerSecond())));
      if (ctx.repeat() > 1) {
        c.add(Numbers.percent(r.spread()));
      }
      c.addAll(List.of(Numbers.rate(r.opsPerSecond() / threads), Numbers.percent(r.opsPerSecond() / memory),
          Numbers.millis(r.p50Ms()), Numbers.millis(r.p99Ms())));
      cells.add(c);
    }
    List<String> headers = new ArrayList<>(List.of("engine", "durability", "threads", "total ops", "runtime s",
        "ops/s"));
    if (ctx.repeat() > 1) {
      headers.add("ops/s spread");
    }
    headers.addAll(List.of("ops/s per thread", "of memory", "p50 ms", "p99 ms"));
    s.table(new ResultTable("total_ops_per_sec and the fraction of the memory engine's",
        headers, cells,
        "none: the log is written, never fsynced; periodic: fsynced every sync interval (the seed's asynchronous "
            + "persistence); sync: each write waits for its fsync, shared by a group commit (the seed's synchronous)."));
    List<Chart.Series> series = new ArrayList<>();
    for (String[] mode : modes) {
      List<ResultRow> mine = rows.stream().filter(r -> r.op().equals("all") && r.system().equals(mode[0])
          && r.param("durability").equals(mode[1])).toList();
      series.add(new Chart.Series(mode[0] + " " + mode[1],
          mine.stream().mapToDouble(r -> Double.parseDouble(r.param("threads"))).toArray(),
          mine.stream().mapToDouble(ResultRow::opsPerSecond).toArray()));
    }
    s.chart(new Chart("toystore-ops", "ops/s against threads, per durability mode", "threads", "ops/s", false, series));
    s.seedTable(SeedFigures.load("toystore").get("runs"));
    report.section(s);
  }
}
