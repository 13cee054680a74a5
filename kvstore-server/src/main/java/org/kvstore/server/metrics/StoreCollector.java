package org.kvstore.server.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
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
 * <p>Thread safety: thread-safe; a table dropped during a scrape is left out.
 */
final class StoreCollector implements MultiCollector {
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
          }
        }
      }
      expired.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
          .value(store.expiryStats().removed()).build());
    } catch (KVStoreException closedOrFailed) {
      // a closing store has no tables to report; the request series still are
    }
    return MetricSnapshots.of(keys.build(), bytes.build(), stats.build(), expired.build());
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of("kv_keys", "kv_storage_bytes", "kv_engine_stat", "kv_expired_keys");
  }
}
