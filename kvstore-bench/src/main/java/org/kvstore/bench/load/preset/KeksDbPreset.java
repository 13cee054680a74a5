package org.kvstore.bench.load.preset;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.Durability;
import org.kvstore.bench.load.driver.Driver;
import org.kvstore.bench.load.driver.LocalStores;
import org.kvstore.bench.load.driver.StoreSizes;
import org.kvstore.bench.load.report.Chart;
import org.kvstore.bench.load.report.Report;
import org.kvstore.bench.load.report.ResultRow;
import org.kvstore.bench.load.report.ResultTable;
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
 * KeksDB's benchmark (seed 004): into a fresh store, put 5M records of 12-byte keys and 500-byte
 * values in random order at a thread count, then get every record in another random order at the
 * same thread count, for the B+tree, the LSM tree and RocksDB, with a 256 MB page buffer or block
 * cache and a 256 MB memtable, no log fsync.
 *
 * <p>Thread safety: one run at a time.
 */
public final class KeksDbPreset implements Preset {
  public static final long RECORDS = 5_000_000;
  public static final List<Integer> THREADS = List.of(1, 4, 8, 16, 32, 50, 100, 160, 200);
  public static final List<String> STORES = List.of("bplus", "lsm", "rocksdb");

  private final List<String> stores;

  public KeksDbPreset(List<String> stores) {
    this.stores = stores == null ? STORES : List.copyOf(stores);
  }

  @Override
  public String name() {
    return "keksdb";
  }

  @Override
  public String title() {
    return "KeksDB's benchmark: B+tree, LSM and RocksDB, put then get, 1 to 200 threads";
  }

  /** {@code chart} with the seed's curve of each of our stores added, dashed. */
  private Chart withSeed(Chart chart, Map<String, ResultTable> seed, String phase, String column) {
    List<Chart.Series> series = new ArrayList<>(chart.series());
    for (String store : stores) {
      ResultTable t = seed.get(store + "-" + phase);
      if (t != null) {
        series.add(Chart.Series.fromSeed(store, t, "threads", column));
      }
    }
    return new Chart(chart.fileName(), chart.title(), chart.xLabel(), chart.yLabel(), chart.logX(), series);
  }

  @Override
  public void run(PresetContext ctx, Report report) throws Exception {
    long records = ctx.scaled(RECORDS, 100);
    StoreSizes sizes = ctx.sizesOr(StoreSizes.KEKSDB);
    List<Integer> threads = ctx.threadsOr(THREADS);
    Workload base = Workload.builder("keksdb").records(records).keyBytes(12).valueBytes(500)
        .distribution(KeyDistribution.SHUFFLED).durability(Durability.NONE).preload(false).build();
    List<ResultRow> rows = new ArrayList<>();
    for (String store : stores) {
      for (int t : threads) {
        List<Measurement> puts = new ArrayList<>();
        List<Measurement> gets = new ArrayList<>();
        for (int r = 0; r < ctx.repeat(); r++) {
          try (Driver d = LocalStores.open(store, ctx.freshDir("keksdb-" + store), Durability.NONE, sizes)) {
            puts.add(ctx.runner().measure(d, base.toBuilder().name("keksdb-put").threads(t)
                .mix(OperationMix.only(Op.PUT)).build(), RunBounds.ops(records, 0)));
            gets.add(ctx.runner().measure(d, base.toBuilder().name("keksdb-get").threads(t)
                .mix(OperationMix.only(Op.GET)).build(), RunBounds.ops(records, 0)));
          }
        }
        Map<String, String> params = new LinkedHashMap<>();
        params.put("threads", Integer.toString(t));
        params.put("records", Long.toString(records));
        rows.addAll(Summaries.rows("keksdb-put", store, params, puts));
        rows.addAll(Summaries.rows("keksdb-get", store, params, gets));
      }
    }
    report.rows(rows);
    report.intro(String.format("Each point: a fresh store, %,d puts of 12-byte keys and 500-byte values in random "
        + "order by the given number of threads, then %,d gets of every key in another random order by as many "
        + "threads. Cache (page buffer or block cache) %d MiB, memtable %d MiB; the log is written but never "
        + "fsynced (the seed disabled its WAL; RocksDB's WAL is on, unsynced, as ours). Repetitions: %d.",
        records, records, sizes.cacheBytes() >> 20, sizes.memtableBytes() >> 20, ctx.repeat()));
    Map<String, ResultTable> seed = SeedFigures.load("keksdb");
    for (String phase : List.of("put", "get")) {
      String experiment = "keksdb-" + phase;
      Section s = new Section(phase.toUpperCase(java.util.Locale.ROOT) + " (" + String.format("%,d", records)
          + " records)");
      for (String store : stores) {
        List<ResultRow> mine = rows.stream().filter(r -> r.experiment().equals(experiment) && r.system().equals(store))
            .toList();
        s.table(LatencyTables.table(store + " " + phase, "threads", mine,
            phase.equals("get") ? "misses: gets that found no value (0 here: every key was written first)." : ""));
      }
      s.chart(withSeed(LatencyTables.chart(experiment + "-ops", phase + ": ops/s against threads (dashed: the seed's)",
          "threads", "ops/s", stores, rows, r -> r.experiment().equals(experiment), ResultRow::opsPerSecond, true),
          seed, phase, "ops/s"));
      s.chart(withSeed(LatencyTables.chart(experiment + "-seconds", phase
          + ": total seconds against threads (dashed: the seed's)", "threads", "total s", stores, rows,
          r -> r.experiment().equals(experiment), ResultRow::seconds, true), seed, phase, "total_sec"));
      for (String store : STORES) {
        s.seedTable(seed.get(store + "-" + phase));
      }
      if (phase.equals("get")) {
        s.text("Where the seed's figures are not comparable: its B+tree get read missing keys (keys that were "
            + "never put: about a microsecond per read over 2.5 GB behind a 256 MB page buffer), and its LSM and "
            + "RocksDB gets ran over 1M records, not 5M. Ours gets every key that was put, over the same record "
            + "count as the put, and counts misses (gets that found no value).");
      }
      report.section(s);
    }
  }
}
