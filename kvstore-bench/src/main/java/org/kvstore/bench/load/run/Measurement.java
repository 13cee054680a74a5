package org.kvstore.bench.load.run;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.kvstore.bench.load.workload.Op;

/**
 * One measured run: how long it took and each operation's latencies (nanoseconds).
 *
 * @param nanos the measured span, from the first intended start to the last answer
 * @param histograms latencies per operation
 * @param misses gets that found no value
 *
 * <p>Thread safety: immutable after construction (the histograms are not changed afterwards).
 */
public record Measurement(long nanos, Map<Op, Histogram> histograms, long misses) {
  public Measurement {
    EnumMap<Op, Histogram> copy = new EnumMap<>(Op.class);
    copy.putAll(histograms);
    histograms = Collections.unmodifiableMap(copy);
  }

  public long ops() {
    return histograms.values().stream().mapToLong(Histogram::getTotalCount).sum();
  }

  public double seconds() {
    return nanos / 1e9;
  }

  public double opsPerSecond() {
    return nanos == 0 ? 0 : ops() / seconds();
  }

  /** All operations' latencies in one histogram. */
  public Histogram all() {
    Histogram all = OpRecorder.newHistogram();
    histograms.values().forEach(all::add);
    return all;
  }
}
