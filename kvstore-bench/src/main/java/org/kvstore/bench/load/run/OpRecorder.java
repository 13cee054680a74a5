package org.kvstore.bench.load.run;

import java.util.EnumMap;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.kvstore.bench.load.workload.Op;

/**
 * One thread's latencies, an HdrHistogram per operation (nanoseconds, 3 significant digits,
 * auto-resizing so no latency is clamped), and its gets that found no value.
 *
 * <p>Thread safety: confined to one thread until {@link #mergeInto}, which the run calls after
 * joining the thread.
 */
public final class OpRecorder {
  static final int SIGNIFICANT_DIGITS = 3;
  private final EnumMap<Op, Histogram> histograms = new EnumMap<>(Op.class);
  private long misses;

  public void record(Op op, long latencyNanos) {
    histograms.computeIfAbsent(op, o -> newHistogram()).recordValue(Math.max(1, latencyNanos));
  }

  public void miss() {
    misses++;
  }

  public long misses() {
    return misses;
  }

  public Map<Op, Histogram> histograms() {
    return histograms;
  }

  /** Adds this thread's histograms and misses to {@code target}'s. */
  public void mergeInto(OpRecorder target) {
    histograms.forEach((op, h) -> target.histograms.computeIfAbsent(op, o -> newHistogram()).add(h));
    target.misses += misses;
  }

  static Histogram newHistogram() {
    Histogram h = new Histogram(SIGNIFICANT_DIGITS);
    h.setAutoResize(true);
    return h;
  }
}
