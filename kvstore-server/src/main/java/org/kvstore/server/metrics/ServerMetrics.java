package org.kvstore.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import org.kvstore.KVStore;

/**
 * The one metrics registry of the server process, exposed at {@code GET /metrics} in the
 * Prometheus text format (exposition 0.0.4). Micrometer's Prometheus registry supplies the JVM
 * series (memory, GC pauses, threads, class loading, CPU, uptime and
 * {@code process_start_time_seconds}) and {@code netty_direct_memory_used_bytes}; the server's own series are collectors that read the
 * counters the front ends and the store already keep, when scraped, so no request pays for a
 * registry lookup ({@link RequestCollector}, {@link StoreCollector}, {@link DurabilityCollector}).
 *
 * <p>Thread safety: thread-safe.
 */
public final class ServerMetrics implements AutoCloseable {
  /** The content type of {@link #scrape()}. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final RequestCollector requests = new RequestCollector();
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final java.util.List<java.util.function.LongSupplier> counterSources =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  public ServerMetrics(KVStore store) {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    // The connections' buffers come from Netty's default pooled allocator; its arenas keep chunks
    // after the buffers are released, so this is what a leak or an unbounded reply would grow.
    Gauge.builder("netty.direct.memory.used", PooledByteBufAllocator.DEFAULT.metric(),
            PooledByteBufAllocatorMetric::usedDirectMemory)
        .baseUnit("bytes").description("Direct memory held by the arenas of Netty's pooled allocator")
        .register(registry);
    registry.getPrometheusRegistry().register(requests);
    registry.getPrometheusRegistry().register(new StoreCollector(store));
    registry.getPrometheusRegistry().register(new DurabilityCollector(store));
  }

  /** Adds a protocol front end's series. */
  public void add(ProtocolMetrics protocol) {
    requests.add(protocol);
  }

  /** Adds a counter series read from {@code value} when scraped (Prometheus adds {@code _total}). */
  public void counter(String name, String help, java.util.function.LongSupplier value) {
    counterSources.add(value); // the registry holds the source weakly
    io.micrometer.core.instrument.FunctionCounter.builder(name, value, v -> v.getAsLong())
        .description(help).register(registry);
  }

  /** Every series, in the Prometheus text format 0.0.4. */
  /** Adds a cluster node's per-shard series ({@link ClusterCollector}). */
  public void addCluster(java.util.function.Supplier<java.util.List<org.kvstore.cluster.ShardStatus>> status) {
    registry.getPrometheusRegistry().register(new ClusterCollector(status));
  }

  public String scrape() {
    return registry.scrape(CONTENT_TYPE);
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
