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
import org.kvstore.bench.load.report.Summaries;
import org.kvstore.bench.load.run.Measurement;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.Workload;
import org.kvstore.bench.load.workload.YcsbWorkloads;

/**
 * YCSB's core workloads on the embedded stores: per store, one fresh store loaded with the records,
 * then workloads in YCSB's recommended order (A, B, C, F, D, then E, whose inserts grow the key space
 * last), each warmed up and measured for the run's duration.
 *
 * <p>Thread safety: one run at a time.
 */
public final class YcsbPreset implements Preset {
  public static final long RECORDS = 1_000_000;
  public static final List<String> WORKLOADS = List.of("a", "b", "c", "f", "d", "e");
  public static final List<String> STORES = List.of("lsm", "bplus", "rocksdb");
  public static final Duration DURATION = Duration.ofSeconds(60);
  public static final int THREADS = 16;

  private final List<String> workloads;
  private final List<String> stores;
  private final Durability durability;

  public YcsbPreset(List<String> workloads, List<String> stores, Durability durability) {
    this.workloads = workloads == null ? WORKLOADS : List.copyOf(workloads);
    this.stores = stores == null ? STORES : List.copyOf(stores);
    this.durability = durability == null ? Durability.NONE : durability;
  }

  @Override
  public String name() {
    return "ycsb";
  }

  @Override
  public String title() {
    return "YCSB core workloads " + String.join(", ", workloads).toUpperCase(Locale.ROOT);
  }

  @Override
  public void run(PresetContext ctx, Report report) throws Exception {
    long records = ctx.scaled(RECORDS, 100);
    Duration duration = ctx.durationOr(DURATION);
    int threads = ctx.threadsOr(List.of(THREADS)).get(0);
    StoreSizes sizes = ctx.sizesOr(StoreSizes.KEKSDB);
    List<ResultRow> rows = new ArrayList<>();
    for (String store : stores) {
      try (Driver d = LocalStores.open(store, ctx.freshDir("ycsb-" + store), durability, sizes)) {
        ctx.runner().preload(d, YcsbWorkloads.named("a", records).threads(threads).build());
        for (String letter : workloads) {
          Workload w = YcsbWorkloads.named(letter, records).threads(threads).durability(durability).build();
          List<Measurement> ms = new ArrayList<>();
          for (int r = 0; r < ctx.repeat(); r++) {
            ms.add(ctx.runner().measure(d, w, RunBounds.duration(duration, ctx.warmup())));
          }
          Map<String, String> params = new LinkedHashMap<>();
          params.put("workload", letter.toUpperCase(Locale.ROOT));
          params.put("threads", Integer.toString(threads));
          params.put("records", Long.toString(records));
          rows.addAll(Summaries.rows("ycsb-" + letter, store, params, ms));
        }
      }
    }
    report.rows(rows);
    report.intro(String.format(Locale.ROOT, "YCSB's core workloads with its record layout (1,000-byte values, "
        + "scrambled-zipfian keys; D: latest; E: scans of 1-100 records): %,d records loaded once per store, %d "
        + "threads, %d s per workload after a %d s warm-up, durability %s. Repetitions: %d.", records, threads,
        duration.toSeconds(), ctx.warmup().toSeconds(), durability.name().toLowerCase(Locale.ROOT), ctx.repeat()));
    Section s = new Section("Throughput and latency per workload");
    List<List<String>> cells = new ArrayList<>();
    for (ResultRow r : rows) {
      cells.add(List.of(r.param("workload"), r.system(), r.op(), Numbers.rate(r.opsPerSecond()),
          Numbers.millis(r.meanMs()), Numbers.millis(r.p50Ms()), Numbers.millis(r.p99Ms()),
          Numbers.millis(r.p999Ms())));
    }
    s.table(new ResultTable("per workload, store and operation", List.of("workload", "store", "op", "ops/s",
        "mean ms", "p50 ms", "p99 ms", "p99.9 ms"), cells, "all: every operation of the workload together."));
    List<Chart.Series> series = new ArrayList<>();
    for (String store : stores) {
      List<ResultRow> totals = new ArrayList<>();
      for (String letter : workloads) {
        rows.stream().filter(r -> r.system().equals(store) && r.experiment().equals("ycsb-" + letter))
            .reduce((a, b) -> b.op().equals("all") ? b : a).ifPresent(totals::add);
      }
      series.add(new Chart.Series(store, totals.stream().mapToDouble(r -> 1 + WORKLOADS.indexOf(
          r.param("workload").toLowerCase(Locale.ROOT))).toArray(), totals.stream().mapToDouble(ResultRow::opsPerSecond)
          .toArray()));
    }
    s.chart(new Chart("ycsb-ops", "ops/s per workload (1=A 2=B 3=C 4=F 5=D 6=E)", "workload", "ops/s", false, series));
    report.section(s);
  }
}
