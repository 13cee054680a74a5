package org.kvstore.server.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.kvstore.KVStoreException;
import org.kvstore.cluster.ShardStatus;

/**
 * A cluster node's shard replicas, read from their Raft state at scrape time: per shard whether
 * this node leads it ({@code kv_cluster_shard_leader}), its term, commit and applied index, and on
 * the leader each follower's lag in entries ({@code kv_cluster_follower_lag_entries}, labels
 * {@code shard} and {@code follower}), and the linearizable reads it sent through Raft
 * ({@code kv_cluster_read_barriers_total}: one per GET, or one per shard for a pipelined run of GETs).
 *
 * <p>Thread safety: thread-safe; a closed node reports nothing.
 */
final class ClusterCollector implements MultiCollector {
  private final Supplier<List<ShardStatus>> status;

  ClusterCollector(Supplier<List<ShardStatus>> status) {
    this.status = status;
  }

  @Override
  public MetricSnapshots collect() {
    List<ShardStatus> shards;
    try {
      shards = status.get();
    } catch (KVStoreException | IllegalStateException closed) {
      return MetricSnapshots.of();
    }
    GaugeSnapshot.Builder lag = GaugeSnapshot.builder().name("kv_cluster_follower_lag_entries")
        .help("On a shard's leader: entries each follower's commit index trails the leader's");
    for (ShardStatus s : shards) {
      for (Map.Entry<String, Long> f : s.followerLag().entrySet()) {
        lag.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
            .labels(Labels.of("shard", s.shard(), "follower", f.getKey())).value(f.getValue()).build());
      }
    }
    return MetricSnapshots.of(
        perShard(shards, "kv_cluster_shard_leader", "1 if this node leads the shard, else 0",
            s -> "leader".equals(s.role()) ? 1 : 0),
        perShard(shards, "kv_cluster_shard_term", "The shard replica's current Raft term", s -> s.term()),
        perShard(shards, "kv_cluster_shard_commit_index", "The highest log index the replica knows committed",
            s -> s.commitIndex()),
        perShard(shards, "kv_cluster_shard_applied_index", "The highest log index the replica applied",
            s -> s.appliedIndex()),
        lag.build(),
        readBarriers(shards));
  }

  private static CounterSnapshot readBarriers(List<ShardStatus> shards) {
    CounterSnapshot.Builder b = CounterSnapshot.builder().name("kv_cluster_read_barriers")
        .help("Linearizable reads this replica sent through Raft: one per GET, or one per shard for a"
            + " pipelined run of GETs");
    for (ShardStatus s : shards) {
      b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
          .labels(Labels.of("shard", s.shard())).value(s.readBarriers()).build());
    }
    return b.build();
  }

  private static GaugeSnapshot perShard(List<ShardStatus> shards, String name, String help,
      Function<ShardStatus, Number> value) {
    GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
    for (ShardStatus s : shards) {
      b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
          .labels(Labels.of("shard", s.shard())).value(value.apply(s).doubleValue()).build());
    }
    return b.build();
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of("kv_cluster_shard_leader", "kv_cluster_shard_term", "kv_cluster_shard_commit_index",
        "kv_cluster_shard_applied_index", "kv_cluster_follower_lag_entries", "kv_cluster_read_barriers");
  }
}
