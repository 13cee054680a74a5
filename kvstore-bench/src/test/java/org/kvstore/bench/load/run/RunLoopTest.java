package org.kvstore.bench.load.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.kvstore.bench.load.workload.KeyChooser;
import org.kvstore.bench.load.workload.KeyDistribution;
import org.kvstore.bench.load.workload.KeySpace;
import org.kvstore.bench.load.workload.Op;
import org.kvstore.bench.load.workload.OperationMix;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.Workload;

class RunLoopTest {
  private static Measurement run(FakeDriver d, Workload w, RunBounds b) throws InterruptedException {
    KeySpace space = new KeySpace(w.records());
    return new RunLoop(d, w, space, KeyChooser.of(w.distribution(), space, 1), 1).run(b, Progress.disabled());
  }

  @Test
  void run_targetRate_isHeldWithinTenPercent() throws InterruptedException {
    Workload w = Workload.builder("rate").records(100).threads(2).targetOpsPerSecond(2000).build();
    Measurement m = run(new FakeDriver(), w, RunBounds.duration(Duration.ofSeconds(1), Duration.ZERO));
    assertThat(m.ops()).isBetween(1800L, 2200L);
    assertThat(m.opsPerSecond()).isBetween(1800.0, 2200.0);
  }

  @Test
  void run_stallUnderTargetRate_recordsTheRequestsTheStallDelayed() throws InterruptedException {
    // 1000 ops/s on one thread, one request stalls 300 ms: the ~300 requests scheduled during the
    // stall are recorded with the time they waited (from their intended start), not as fast ones.
    Workload w = Workload.builder("co").records(100).threads(1).targetOpsPerSecond(1000).build();
    Measurement m = run(new FakeDriver(200, 300_000_000L), w,
        RunBounds.duration(Duration.ofMillis(1500), Duration.ZERO));
    Histogram h = m.histograms().get(Op.GET);
    long slow = h.getCountBetweenValues(10_000_000L, Long.MAX_VALUE / 4);
    assertThat(slow).isGreaterThan(200);
    assertThat(h.getMaxValue()).isGreaterThan(250_000_000L);
  }

  @Test
  void run_stallInClosedLoop_recordsOneSlowRequest() throws InterruptedException {
    Workload w = Workload.builder("closed").records(100).threads(1).build();
    Measurement m = run(new FakeDriver(200, 300_000_000L), w, RunBounds.ops(2000, 0));
    Histogram h = m.histograms().get(Op.GET);
    assertThat(h.getCountBetweenValues(10_000_000L, Long.MAX_VALUE / 4)).isEqualTo(1);
  }

  @Test
  void run_opsBound_doesExactlyThatManyAcrossThreads() throws InterruptedException {
    FakeDriver d = new FakeDriver();
    Workload w = Workload.builder("ops").records(500).threads(4).mix(OperationMix.only(Op.PUT))
        .distribution(KeyDistribution.SHUFFLED).build();
    Measurement m = run(d, w, RunBounds.ops(500, 0));
    assertThat(m.ops()).isEqualTo(500);
    assertThat(d.map).hasSize(500);
    assertThat(d.sessions).hasSize(4);
  }

  @Test
  void run_pipelined_recordsEveryRequest() throws InterruptedException {
    FakeDriver d = new FakeDriver();
    Workload w = Workload.builder("pipe").records(50).threads(2).pipelineDepth(8)
        .mix(OperationMix.parse("get=0.5,put=0.5")).build();
    Measurement m = run(d, w, RunBounds.ops(1003, 0));
    assertThat(m.ops()).isEqualTo(1003);
    assertThat(m.histograms()).containsOnlyKeys(Op.GET, Op.PUT);
  }

  @Test
  void run_secondaryIndexes_writesRowAndIndexEntriesTogether() throws InterruptedException {
    FakeDriver d = new FakeDriver();
    Workload w = Workload.builder("idx").records(100).threads(1).mix(OperationMix.only(Op.PUT))
        .distribution(KeyDistribution.SEQUENTIAL).secondaryIndexes(3).build();
    run(d, w, RunBounds.ops(100, 0));
    assertThat(d.map).hasSize(400);
    assertThat(d.map.keySet().stream().filter(k -> k.startsWith("~"))).hasSize(300);
  }

  @Test
  void run_missingKeys_areCountedAsMisses() throws InterruptedException {
    Workload w = Workload.builder("miss").records(100).threads(1).build();
    Measurement m = run(new FakeDriver(), w, RunBounds.ops(50, 0));
    assertThat(m.misses()).isEqualTo(50);
  }

  @Test
  void run_failingDriver_throwsTheFailure() {
    FakeDriver d = new FakeDriver() {
      @Override
      public org.kvstore.bench.load.driver.Session openSession() {
        throw new IllegalStateException("connection refused");
      }
    };
    Workload w = Workload.builder("fail").records(10).threads(2).build();
    assertThatThrownBy(() -> run(d, w, RunBounds.ops(10, 0))).hasMessageContaining("connection refused");
  }
}
