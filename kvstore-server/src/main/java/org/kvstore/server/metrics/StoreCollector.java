package org.kvstore.server.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.kvstore.TableInfo;

/**
 * The store's series, read from its tables at scrape time: {@code kv_keys{db,table}} and
 * {@code kv_storage_bytes{db,table}} (estimates), {@code kv_engine_stat{db,table,stat}} (each
 * engine statistic: lsm flushes, compactions, write stalls, block-cache hits, ...), and the active
 * expiry counters.
 *
 * <p>The engine statistics that mean the same for every engine that reports them also get counter
 * families of their own, so that {@code rate()} applies and a dashboard need not know the engine's
 * statistic names: {@code kv_flushes_total}, {@code kv_compactions_total},
 * {@code kv_write_stalls_total}, {@code kv_write_stall_seconds_total} and
 * {@code kv_cache_hits_total}/{@code kv_cache_misses_total} with a {@code cache} label ({@code block}
 * and {@code row} for lsm, {@code buffer} for the bplus buffer pool). A table whose engine does not
 * report a statistic has no series in its family.
 *
 * <p>Thread safety: thread-safe; a table dropped during a scrape is left out.
 */
final class StoreCollector implements MultiCollector {
  /** An engine statistic mapped to a counter family: its name there, its cache label, its scale. */
  private record Mapped(String family, String cache, double scale) {}

  /** Engine statistic name to family (see the class comment). */
  private static final Map<String, Mapped> MAPPED = Map.of(
      "flushes", new Mapped("kv_flushes", null, 1),
      "compactions", new Mapped("kv_compactions", null, 1),
      "write.stalls", new Mapped("kv_write_stalls", null, 1),
      "write.stall.millis", new Mapped("kv_write_stall_seconds", null, 1e-3),
      "block.cache.hits", new Mapped("kv_cache_hits", "block", 1),
      "block.cache.misses", new Mapped("kv_cache_misses", "block", 1),
      "row.cache.hits", new Mapped("kv_cache_hits", "row", 1),
      "row.cache.misses", new Mapped("kv_cache_misses", "row", 1),
      "buffer.hits", new Mapped("kv_cache_hits", "buffer", 1),
      "buffer.misses", new Mapped("kv_cache_misses", "buffer", 1));

  /** A counter family that engine statistics map to. */
  private record Family(String name, String help) {}

  /** The mapped families, in the order they are exposed. */
  private static final List<Family> MAPPED_FAMILIES = List.of(
      new Family("kv_flushes", "Memtable flushes since start, by table"),
      new Family("kv_compactions", "Compactions since start, by table"),
      new Family("kv_write_stalls", "Writes that had to wait for flushes or compactions since start, by table"),
      new Family("kv_write_stall_seconds", "Time writes spent stalled since start, by table"),
      new Family("kv_cache_hits", "Cache hits since start, by table and cache (block, row, buffer)"),
      new Family("kv_cache_misses", "Cache misses since start, by table and cache (block, row, buffer)"));

  private final KVStore store;

  StoreCollector(KVStore store) {
    this.store = store;
  }

  @Override
  public MetricSnapshots collect() {
    GaugeSnapshot.Builder keys = GaugeSnapshot.builder().name("kv_keys")
        .help("Approximate number of keys, by table");
    GaugeSnapshot.Builder bytes = GaugeSnapshot.builder().name("kv_storage_bytes")
        .help("Bytes of a table's files, by table");
    GaugeSnapshot.Builder stats = GaugeSnapshot.builder().name("kv_engine_stat")
        .help("Engine statistics by table and name (lsm: flushes, compactions, write.stalls, block cache hits, ...)");
    CounterSnapshot.Builder expired = CounterSnapshot.builder().name("kv_expired_keys")
        .help("Keys removed by the active expiry passes since start");
    Map<String, CounterSnapshot.Builder> mapped = new LinkedHashMap<>();
    for (Family f : MAPPED_FAMILIES) {
      mapped.put(f.name(), CounterSnapshot.builder().name(f.name()).help(f.help()));
    }
    try {
      for (String db : store.listDBs()) {
        for (String table : store.listTables(db)) {
          TableInfo info;
          try {
            info = store.tableInfo(db, table);
          } catch (KVStoreException dropped) {
            continue;
          }
          Labels labels = Labels.of("db", db, "table", table);
          keys.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
              .labels(labels).value(info.entryEstimate()).build());
          bytes.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
              .labels(labels).value(info.bytesOnDisk()).build());
          for (Map.Entry<String, Long> e : info.engineStats().entrySet()) {
            stats.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .labels(Labels.of("db", db, "table", table, "stat", e.getKey())).value(e.getValue()).build());
            Mapped m = MAPPED.get(e.getKey());
            if (m != null) {
              Labels l = m.cache() == null ? labels : Labels.of("cache", m.cache(), "db", db, "table", table);
              mapped.get(m.family()).dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                  .labels(l).value(e.getValue() * m.scale()).build());
            }
          }
        }
      }
      expired.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
          .value(store.expiryStats().removed()).build());
    } catch (KVStoreException closedOrFailed) {
      // a closing store has no tables to report; the request series still are
    }
    MetricSnapshots.Builder out = MetricSnapshots.builder()
        .metricSnapshot(keys.build()).metricSnapshot(bytes.build()).metricSnapshot(stats.build())
        .metricSnapshot(expired.build());
    for (CounterSnapshot.Builder b : mapped.values()) {
      out.metricSnapshot(b.build());
    }
    return out.build();
  }

  @Override
  public List<String> getPrometheusNames() {
    List<String> names = new ArrayList<>(List.of("kv_keys", "kv_storage_bytes", "kv_engine_stat", "kv_expired_keys"));
    MAPPED_FAMILIES.forEach(f -> names.add(f.name()));
    return names;
  }
}
