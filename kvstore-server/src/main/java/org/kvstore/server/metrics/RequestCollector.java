package org.kvstore.server.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The per-protocol series, read from the front ends' own counters at scrape time:
 * {@code kv_requests_total{protocol,command,result}}, {@code kv_request_duration_seconds} (a
 * histogram by protocol and command), {@code kv_connections{protocol}},
 * {@code kv_connections_accepted_total{protocol}} and {@code kv_network_bytes_total{protocol,direction}}.
 *
 * <p>Thread safety: thread-safe.
 */
final class RequestCollector implements MultiCollector {
  private static final double[] BOUNDS = LatencyBuckets.upperBoundsSeconds();
  private final List<ProtocolMetrics> protocols = new CopyOnWriteArrayList<>();

  void add(ProtocolMetrics p) {
    protocols.add(p);
  }

  @Override
  public MetricSnapshots collect() {
    CounterSnapshot.Builder requests = CounterSnapshot.builder().name("kv_requests")
        .help("Requests answered, by protocol, command and result (ok or error)");
    HistogramSnapshot.Builder latency = HistogramSnapshot.builder().name("kv_request_duration_seconds")
        .help("Time from a request's arrival to its answer, by protocol and command");
    GaugeSnapshot.Builder open = GaugeSnapshot.builder().name("kv_connections")
        .help("Client connections open now, by protocol");
    CounterSnapshot.Builder accepted = CounterSnapshot.builder().name("kv_connections_accepted")
        .help("Client connections accepted since start, by protocol");
    CounterSnapshot.Builder bytes = CounterSnapshot.builder().name("kv_network_bytes")
        .help("Bytes read from (in) and written to (out) client connections, by protocol");
    for (ProtocolMetrics p : protocols) {
      String protocol = p.protocol();
      p.requests().visit((command, ok, errors, buckets, sumNanos) -> {
        requests.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
            .labels(Labels.of("protocol", protocol, "command", command, "result", "ok")).value(ok).build());
        requests.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
            .labels(Labels.of("protocol", protocol, "command", command, "result", "error")).value(errors).build());
        long total = 0;
        for (long b : buckets) {
          total += b;
        }
        if (total > 0) {
          latency.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
              .labels(Labels.of("protocol", protocol, "command", command))
              .classicHistogramBuckets(ClassicHistogramBuckets.of(BOUNDS, buckets)) // counts per bucket; cumulated on output
              .sum(sumNanos / 1e9)
              .build());
        }
      });
      Labels labels = Labels.of("protocol", protocol);
      open.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
          .labels(labels).value(p.openConnections().getAsLong()).build());
      accepted.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
          .labels(labels).value(p.acceptedConnections().getAsLong()).build());
      bytes.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
          .labels(Labels.of("protocol", protocol, "direction", "in")).value(p.bytes().bytesIn()).build());
      bytes.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
          .labels(Labels.of("protocol", protocol, "direction", "out")).value(p.bytes().bytesOut()).build());
    }
    return MetricSnapshots.of(requests.build(), latency.build(), open.build(), accepted.build(), bytes.build());
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(
        "kv_requests", "kv_request_duration_seconds", "kv_connections", "kv_connections_accepted", "kv_network_bytes");
  }
}
