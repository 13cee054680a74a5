package org.kvstore.bench.load.preset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RedisBenchmarkToolTest {
  @Test
  void parse_csvOfRedisBenchmark7_readsEachTest() {
    Map<String, RedisBenchmarkTool.Line> lines = RedisBenchmarkTool.parse(
        "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
            + "\"SET\",\"inf\",\"0.038\",\"0.016\",\"0.039\",\"0.087\",\"0.087\",\"0.087\"\n"
            + "\"GET\",\"10000.00\",\"0.033\",\"0.016\",\"0.039\",\"0.063\",\"0.071\",\"0.090\"\n");
    assertThat(lines).containsOnlyKeys("SET", "GET");
    assertThat(lines.get("SET").rps()).isInfinite();
    RedisBenchmarkTool.Line get = lines.get("GET");
    assertThat(get.rps()).isEqualTo(10000.0);
    assertThat(get.avgMs()).isEqualTo(0.033);
    assertThat(get.p50Ms()).isEqualTo(0.039);
    assertThat(get.p99Ms()).isEqualTo(0.071);
    assertThat(get.maxMs()).isEqualTo(0.090);
  }

  @Test
  void parse_noResult_failsWithTheOutput() {
    assertThatThrownBy(() -> RedisBenchmarkTool.parse("Could not connect to Redis at 127.0.0.1:1"))
        .hasMessageContaining("Could not connect");
  }
}
