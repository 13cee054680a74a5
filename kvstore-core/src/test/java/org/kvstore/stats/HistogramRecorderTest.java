package org.kvstore.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvstore.Histogram;

class HistogramRecorderTest {
  @Test
  void record_countsEachValueInTheFirstBucketWhoseBoundIsAtLeastIt() {
    HistogramRecorder r = new HistogramRecorder(10, 100);
    for (long v : new long[] {0, 10, 11, 100, 101, 5_000}) {
      r.record(v);
    }
    Histogram h = r.snapshot();
    assertThat(h.upperBounds()).containsExactly(10L, 100L);
    assertThat(h.bucketCounts()).containsExactly(2L, 2L, 2L);
    assertThat(h.count()).isEqualTo(6);
    assertThat(h.sum()).isEqualTo(5_222);
    assertThat(h.max()).isEqualTo(5_000);
  }

  @Test
  void snapshot_nothingRecorded_allZero() {
    Histogram h = HistogramRecorder.forNanos().snapshot();
    assertThat(h.count()).isZero();
    assertThat(h.sum()).isZero();
    assertThat(h.max()).isZero();
    assertThat(h.bucketCounts()).hasSize(h.upperBounds().size() + 1);
  }

  @Test
  void forPowersOfTwo_boundsFromOne() {
    HistogramRecorder r = HistogramRecorder.forPowersOfTwo(3);
    r.record(3);
    r.record(9);
    Histogram h = r.snapshot();
    assertThat(h.upperBounds()).containsExactly(1L, 2L, 4L, 8L);
    assertThat(h.bucketCounts()).containsExactly(0L, 0L, 1L, 0L, 1L);
  }

  @Test
  void constructor_boundsNotAscending_throws() {
    assertThatThrownBy(() -> new HistogramRecorder(5, 5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("upperBounds");
    assertThatThrownBy(() -> new Histogram(List.of(1L), List.of(0L), 0, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bucketCounts");
  }
}
