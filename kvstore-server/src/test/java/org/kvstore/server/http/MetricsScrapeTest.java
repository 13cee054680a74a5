package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;
import org.kvstore.thrift.KvService;
import org.kvstore.thrift.PutOptions;
import redis.clients.jedis.Jedis;

/**
 * Every family issue 23 lists is on {@code /metrics} with sensible values after RESP, HTTP and Thrift
 * traffic, writes that wait for fsync into an lsm table, and a checkpoint: requests, request
 * latencies, connections and bytes by protocol; keys, bytes, flushes, compactions, stalls and cache
 * hits by table; WAL fsyncs with their latency, appended bytes and batch sizes; checkpoint
 * durations; JVM memory and GC pauses. Scraped with Java's {@code HttpClient}.
 */
class MetricsScrapeTest {
  private static final int KEYS = 20;

  @TempDir Path dir;

  private static ByteBuffer b(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void metrics_afterTrafficOnEveryProtocolAndACheckpoint_everyFamilyWithSensibleValues() throws Exception {
    try (KVStoreServer server = KVStoreServer.start(HttpServers.config(dir).set("thrift-port", "0").build())) {
      HttpTestClient http = new HttpTestClient(server.httpPort());
      assertThat(http.put("/v1/dbs/m", null).statusCode()).isEqualTo(201);
      assertThat(http.put("/v1/dbs/m/tables/t", "{\"engine\":\"lsm\",\"properties\":{\"durability\":\"sync\"}}",
          "Content-Type", "application/json").statusCode()).isEqualTo(201);
      for (int i = 0; i < KEYS; i++) {
        assertThat(http.put("/v1/dbs/m/tables/t/keys/h" + i, "value-" + i).statusCode()).isEqualTo(201);
      }
      assertThat(http.get("/v1/dbs/m/tables/t/keys/absent").statusCode()).isEqualTo(404);

      try (Jedis resp = new Jedis("127.0.0.1", server.respPort())) {
        resp.set("r", "1");
        resp.get("r");
      }

      TSocket socket = new TSocket("127.0.0.1", server.thriftPort(), 10_000);
      socket.open();
      try {
        KvService.Client thrift = new KvService.Client(new TBinaryProtocol(new TFramedTransport(socket)));
        thrift.put("m", "t", b("thrift-key"), b("v"), new PutOptions());
        assertThat(thrift.get("m", "t", b("thrift-key"))).isEqualTo(b("v"));
      } finally {
        socket.close();
      }

      server.store().checkpoint();
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < KEYS; i++) {
          assertThat(http.get("/v1/dbs/m/tables/t/keys/h" + i).statusCode()).isEqualTo(200);
        }
      }

      PrometheusText m = scrapeOnceGcPausesAppear(http);

      // requests, latencies, connections and bytes, by protocol
      assertThat(m.value("kv_requests_total", "protocol", "http", "command", "key.put", "result", "ok")).isEqualTo(KEYS);
      assertThat(m.value("kv_requests_total", "protocol", "http", "command", "key.get", "result", "error")).isEqualTo(1);
      assertThat(m.value("kv_requests_total", "protocol", "resp", "command", "set", "result", "ok")).isEqualTo(1);
      assertThat(m.sum("kv_requests_total", "protocol", "thrift", "result", "ok")).isGreaterThanOrEqualTo(2);
      for (String protocol : List.of("resp", "http", "thrift")) {
        assertThat(m.samples("kv_request_duration_seconds_count", "protocol", protocol)).as(protocol).isNotEmpty();
        assertThat(m.value("kv_connections_accepted_total", "protocol", protocol)).as(protocol).isPositive();
        assertThat(m.value("kv_connections", "protocol", protocol)).as(protocol).isNotNegative();
        assertThat(m.value("kv_network_bytes_total", "protocol", protocol, "direction", "in")).as(protocol).isPositive();
        assertThat(m.value("kv_network_bytes_total", "protocol", protocol, "direction", "out")).as(protocol).isPositive();
      }
      assertHistogram(m, "kv_request_duration_seconds", KEYS, "protocol", "http", "command", "key.put");
      assertThat(m.value("kv_connections", "protocol", "http")).as("the scrape's own connection").isPositive();

      // keys and bytes, flushes, compactions, stalls and cache hits, by table
      String[] table = {"db", "m", "table", "t"};
      assertThat(m.value("kv_keys", table)).isPositive();
      assertThat(m.value("kv_storage_bytes", table)).isPositive();
      assertThat(m.value("kv_flushes_total", table)).as("the checkpoint flushed the memtable").isGreaterThanOrEqualTo(1);
      assertThat(m.value("kv_compactions_total", table)).isNotNegative();
      assertThat(m.value("kv_write_stalls_total", table)).isNotNegative();
      assertThat(m.value("kv_write_stall_seconds_total", table)).isNotNegative();
      double blockHits = m.value("kv_cache_hits_total", "db", "m", "table", "t", "cache", "block");
      double blockMisses = m.value("kv_cache_misses_total", "db", "m", "table", "t", "cache", "block");
      double rowHits = m.value("kv_cache_hits_total", "db", "m", "table", "t", "cache", "row");
      assertThat(blockHits + blockMisses + rowHits).as("reads of flushed keys went through the caches").isPositive();
      assertThat(m.samples("kv_engine_stat", "db", "m", "table", "t", "stat", "flushes")).hasSize(1);
      // the flush put its blocks in the block cache, whose memory is direct, outside the heap
      double cacheMemory = m.value("kv_engine_stat", "db", "m", "table", "t", "stat", "block.cache.memory.bytes");
      assertThat(cacheMemory).isPositive();
      assertThat(m.value("jvm_buffer_memory_used_bytes", "id", "direct")).isGreaterThanOrEqualTo(cacheMemory);

      // the write-ahead log and the checkpoints
      double syncs = m.value("kv_wal_syncs_total");
      assertThat(syncs).as("writes that wait for fsync").isGreaterThanOrEqualTo(KEYS);
      assertHistogram(m, "kv_wal_sync_duration_seconds", (long) syncs);
      assertThat(m.value("kv_wal_sync_duration_seconds_max")).isPositive()
          .isLessThanOrEqualTo(m.value("kv_wal_sync_duration_seconds_sum"));
      assertThat(m.value("kv_wal_appended_bytes_total")).isGreaterThan(KEYS * "value-0".length());
      assertThat(m.value("kv_wal_batch_records_sum")).as("records logged").isGreaterThanOrEqualTo(KEYS + 1);
      assertHistogram(m, "kv_wal_batch_records", (long) m.value("kv_wal_batch_records_count"));
      double checkpoints = m.value("kv_checkpoints_total");
      assertThat(checkpoints).isGreaterThanOrEqualTo(1);
      assertHistogram(m, "kv_checkpoint_duration_seconds", (long) checkpoints);
      assertThat(m.value("kv_checkpoint_duration_seconds_max")).isPositive();
      assertThat(m.value("kv_checkpoint_failures_total")).isZero();

      // the JVM
      assertThat(m.sum("jvm_memory_used_bytes", "area", "heap")).isPositive();
      assertThat(m.sum("jvm_gc_pause_seconds_count")).isPositive();
    }
  }

  /**
   * Scrapes after a collection; GC pause series appear once the JVM has reported a collection, which
   * arrives asynchronously, so this scrapes until they do (at most 10 s).
   */
  private static PrometheusText scrapeOnceGcPausesAppear(HttpTestClient http) throws InterruptedException {
    System.gc();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      HttpResponse<byte[]> r = http.get("/metrics");
      assertThat(r.statusCode()).isEqualTo(200);
      PrometheusText m = PrometheusText.parse(HttpTestClient.text(r));
      if (!m.samples("jvm_gc_pause_seconds_count").isEmpty() || System.nanoTime() > deadline) {
        return m;
      }
      Thread.sleep(100);
      if (ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(g -> g.getCollectionCount()).sum() == 0) {
        System.gc();
      }
    }
  }

  /**
   * A classic histogram: cumulative buckets that never decrease, a {@code +Inf} bucket equal to
   * {@code _count}, {@code _count} equal to {@code expectedCount} and a positive {@code _sum}.
   */
  private static void assertHistogram(PrometheusText m, String name, long expectedCount, String... labels) {
    List<PrometheusText.Sample> buckets = m.samples(name + "_bucket", labels);
    assertThat(buckets).as("%s buckets", name).hasSizeGreaterThan(2);
    double previous = 0;
    for (PrometheusText.Sample s : buckets) {
      assertThat(s.value()).as("%s cumulative at le=%s", name, s.labels().get("le")).isGreaterThanOrEqualTo(previous);
      previous = s.value();
    }
    assertThat(buckets.get(buckets.size() - 1).labels()).containsEntry("le", "+Inf");
    double count = m.value(name + "_count", labels);
    assertThat(previous).as("%s +Inf bucket", name).isEqualTo(count);
    assertThat(count).as("%s count", name).isEqualTo(expectedCount);
    assertThat(m.value(name + "_sum", labels)).as("%s sum", name).isPositive();
  }
}
