package org.kvstore.bench.load.preset;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.kvstore.Durability;
import org.kvstore.bench.load.driver.Driver;
import org.kvstore.bench.load.driver.LocalStores;
import org.kvstore.bench.load.driver.StoreSizes;
import org.kvstore.bench.load.report.Report;
import org.kvstore.bench.load.report.ResultRow;
import org.kvstore.bench.load.report.Section;
import org.kvstore.bench.load.report.SeedFigures;
import org.kvstore.bench.load.report.Summaries;
import org.kvstore.bench.load.run.Measurement;
import org.kvstore.bench.load.workload.KeyDistribution;
import org.kvstore.bench.load.workload.Op;
import org.kvstore.bench.load.workload.OperationMix;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.Workload;

/**
 * BlitzDB's concurrent INSERT test (seed 002): insert 1M rows of three integer columns (12 bytes)
 * into a fresh store at increasing concurrency until the curve flattens, with 0 to 3 secondary
 * indexes. Each index is a key range of the same table ({@code ~i:column:row}), written with its
 * row in one atomic write batch, so a row and its index entries appear together or not at all.
 *
 * <p>Thread safety: one run at a time.
 */
public final class BlitzDbPreset implements Preset {
  public static final long ROWS = 1_000_000;
  public static final List<Integer> CONCURRENCY = List.of(1, 2, 4, 8, 12, 16, 24, 32, 48, 64);
  public static final int MAX_INDEXES = 3;
  /** The curve is flat once two steps in a row gain less than this. */
  static final double FLAT_GAIN = 0.05;

  private final String engine;
  private final Durability durability;

  public BlitzDbPreset(String engine, Durability durability) {
    this.engine = engine == null ? "lsm" : engine;
    this.durability = durability == null ? Durability.NONE : durability;
  }

  @Override
  public String name() {
    return "blitzdb";
  }

  @Override
  public String title() {
    return "BlitzDB's concurrent insert test: 1M rows, 0 to 3 secondary indexes, until the curve flattens";
  }

  @Override
  public void run(PresetContext ctx, Report report) throws Exception {
    long rows = ctx.scaled(ROWS, 100);
    StoreSizes sizes = ctx.sizesOr(StoreSizes.SMALL);
    List<ResultRow> results = new ArrayList<>();
    List<String> series = new ArrayList<>();
    for (int indexes = 0; indexes <= MAX_INDEXES; indexes++) {
      String system = engine + " +" + indexes + " index" + (indexes == 1 ? "" : "es");
      series.add(system);
      List<Double> curve = new ArrayList<>();
      for (int c : ctx.threadsOr(CONCURRENCY)) {
        Workload w = Workload.builder("blitzdb-insert").records(rows).keyBytes(16).valueBytes(12)
            .mix(OperationMix.only(Op.PUT)).distribution(KeyDistribution.SEQUENTIAL).threads(c)
            .durability(durability).secondaryIndexes(indexes).preload(false).build();
        List<Measurement> ms = new ArrayList<>();
        for (int r = 0; r < ctx.repeat(); r++) {
          try (Driver d = LocalStores.open(engine, ctx.freshDir("blitzdb"), durability, sizes)) {
            ms.add(ctx.runner().measure(d, w, RunBounds.ops(rows, 0)));
          }
        }
        Map<String, String> params = new LinkedHashMap<>();
        params.put("concurrency", Integer.toString(c));
        params.put("indexes", Integer.toString(indexes));
        List<ResultRow> point = Summaries.rows("blitzdb-insert", system, params, ms);
        results.addAll(point);
        curve.add(point.get(0).opsPerSecond());
        if (flattened(curve)) {
          ctx.log().printf(Locale.ROOT, "  %s: flat after concurrency %d%n", system, c);
          break;
        }
      }
    }
    report.rows(results);
    report.intro(String.format(Locale.ROOT, "Each point: a fresh %s store, %,d rows (16-byte keys, 12-byte values: "
        + "three integer columns) inserted in key order by the given number of threads, durability %s. With k "
        + "indexes each insert writes the row and k index entries in one atomic batch. Concurrency rises until "
        + "two steps in a row gain less than %.0f%%. Repetitions: %d.", engine, rows,
        durability.name().toLowerCase(Locale.ROOT), FLAT_GAIN * 100, ctx.repeat()));
    Section s = new Section("Insert rate against concurrency, per index count");
    for (String system : series) {
      s.table(LatencyTables.table(system, "concurrency",
          results.stream().filter(r -> r.system().equals(system)).toList(), ""));
    }
    s.chart(LatencyTables.chart("blitzdb-insert-ops", "inserts/s against concurrency", "concurrency", "inserts/s",
        series, results, r -> true, ResultRow::opsPerSecond, true));
    s.text("What each index costs is the gap between the curves: an index entry per row is one more key "
        + "in the same batch, written to the log and the memtable with the row.");
    s.seedTable(SeedFigures.load("blitzdb").get("points"));
    report.section(s);
  }

  /** Whether the last two steps each gained less than {@link #FLAT_GAIN}. */
  static boolean flattened(List<Double> curve) {
    int n = curve.size();
    if (n < 3) {
      return false;
    }
    return curve.get(n - 1) < curve.get(n - 2) * (1 + FLAT_GAIN)
        && curve.get(n - 2) < curve.get(n - 3) * (1 + FLAT_GAIN);
  }
}
