package org.kvstore.server.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import org.kvstore.DurabilityStats;
import org.kvstore.Histogram;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;

/**
 * The store's durability series, read from {@link KVStore#durabilityStats()} at scrape time: the
 * write-ahead log's fsyncs ({@code kv_wal_syncs_total}, the histogram
 * {@code kv_wal_sync_duration_seconds} and its {@code _max}), bytes appended
 * ({@code kv_wal_appended_bytes_total}), the group-commit batch size ({@code kv_wal_batch_records},
 * records per {@code write()}), and the checkpoints ({@code kv_checkpoints_total},
 * {@code kv_checkpoint_duration_seconds} and its {@code _max}, {@code kv_checkpoint_failures_total}).
 * The store records them once per fsync, log write and checkpoint; this class only converts units.
 *
 * <p>Thread safety: thread-safe; a closed store reports nothing.
 */
final class DurabilityCollector implements MultiCollector {
  private static final double NANOS_PER_SECOND = 1e9;
  private final KVStore store;

  DurabilityCollector(KVStore store) {
    this.store = store;
  }

  @Override
  public MetricSnapshots collect() {
    DurabilityStats s;
    try {
      s = store.durabilityStats();
    } catch (KVStoreException closed) {
      return MetricSnapshots.of();
    }
    return MetricSnapshots.of(
        counter("kv_wal_syncs", "Fsyncs of the write-ahead log since start", s.walSyncs()),
        histogram("kv_wal_sync_duration_seconds", "Duration of each fsync of the write-ahead log",
            s.walSyncNanos(), NANOS_PER_SECOND),
        gauge("kv_wal_sync_duration_seconds_max", "Longest fsync of the write-ahead log since start",
            s.walSyncNanos().max() / NANOS_PER_SECOND),
        counter("kv_wal_appended_bytes", "Bytes of records appended to the write-ahead log since start",
            s.walAppendedBytes()),
        histogram("kv_wal_batch_records",
            "Records per write() of the write-ahead log (the group-commit batch size)", s.walBatchRecords(), 1),
        counter("kv_checkpoints", "Checkpoints completed since start", s.checkpoints()),
        histogram("kv_checkpoint_duration_seconds",
            "Duration of each checkpoint (every table persisted, obsolete log segments deleted)",
            s.checkpointNanos(), NANOS_PER_SECOND),
        gauge("kv_checkpoint_duration_seconds_max", "Longest checkpoint since start",
            s.checkpointNanos().max() / NANOS_PER_SECOND),
        counter("kv_checkpoint_failures", "Checkpoints that failed since start", s.checkpointFailures()));
  }

  private static CounterSnapshot counter(String name, String help, long value) {
    return CounterSnapshot.builder().name(name).help(help)
        .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(value).build()).build();
  }

  private static GaugeSnapshot gauge(String name, String help, double value) {
    return GaugeSnapshot.builder().name(name).help(help)
        .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).build()).build();
  }

  /** {@code h}'s values divided by {@code unitsPerBase} (nanoseconds to seconds, or 1). */
  private static HistogramSnapshot histogram(String name, String help, Histogram h, double unitsPerBase) {
    List<Long> bounds = h.upperBounds();
    double[] upper = new double[bounds.size() + 1];
    long[] counts = new long[upper.length];
    for (int i = 0; i < bounds.size(); i++) {
      upper[i] = bounds.get(i) / unitsPerBase;
    }
    upper[bounds.size()] = Double.POSITIVE_INFINITY;
    for (int i = 0; i < counts.length; i++) {
      counts[i] = h.bucketCounts().get(i);
    }
    return HistogramSnapshot.builder().name(name).help(help)
        .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
            .classicHistogramBuckets(ClassicHistogramBuckets.of(upper, counts)) // per bucket; cumulated on output
            .sum(h.sum() / unitsPerBase)
            .build())
        .build();
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of("kv_wal_syncs", "kv_wal_sync_duration_seconds", "kv_wal_sync_duration_seconds_max",
        "kv_wal_appended_bytes", "kv_wal_batch_records", "kv_checkpoints", "kv_checkpoint_duration_seconds",
        "kv_checkpoint_duration_seconds_max", "kv_checkpoint_failures");
  }
}
