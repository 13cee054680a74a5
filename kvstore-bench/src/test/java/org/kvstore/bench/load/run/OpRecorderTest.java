package org.kvstore.bench.load.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.kvstore.bench.load.workload.Op;

class OpRecorderTest {
  @Test
  void record_knownLatencies_givesTheirPercentilesPerOperation() {
    OpRecorder r = new OpRecorder();
    for (int i = 1; i <= 1000; i++) {
      r.record(Op.GET, i * 1000L); // 1 us .. 1 ms
    }
    r.record(Op.PUT, 3_600_000_000_000L); // an hour: auto-resizing, not clamped
    Histogram get = r.histograms().get(Op.GET);
    assertThat(get.getTotalCount()).isEqualTo(1000);
    assertThat(get.getValueAtPercentile(50) / 1000.0).isCloseTo(500, within(1.0));
    assertThat(get.getValueAtPercentile(99) / 1000.0).isCloseTo(990, within(1.0));
    assertThat(r.histograms().get(Op.PUT).getMaxValue() / 1e9).isCloseTo(3600, within(3.0));
  }

  @Test
  void mergeInto_twoThreads_addsHistogramsAndMisses() {
    OpRecorder a = new OpRecorder();
    OpRecorder b = new OpRecorder();
    a.record(Op.GET, 10);
    b.record(Op.GET, 20);
    b.record(Op.SCAN, 30);
    a.miss();
    b.miss();
    OpRecorder all = new OpRecorder();
    a.mergeInto(all);
    b.mergeInto(all);
    assertThat(all.histograms().get(Op.GET).getTotalCount()).isEqualTo(2);
    assertThat(all.histograms().get(Op.SCAN).getTotalCount()).isEqualTo(1);
    assertThat(all.misses()).isEqualTo(2);
  }
}
