package org.kvstore.bench.load.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;
import org.kvstore.bench.load.run.Measurement;
import org.kvstore.bench.load.workload.Op;

/**
 * Turns the repetitions of one measurement into result rows: one per operation, plus {@code all}
 * when there is more than one, each figure the median over the repetitions.
 *
 * <p>Thread safety: stateless.
 */
public final class Summaries {
  private Summaries() {}

  public static List<ResultRow> rows(String experiment, String system, Map<String, String> params,
      List<Measurement> repeats) {
    if (repeats.isEmpty()) {
      throw new IllegalArgumentException("no measurement for " + experiment + "/" + system);
    }
    List<ResultRow> rows = new ArrayList<>();
    List<Op> ops = new ArrayList<>(repeats.get(0).histograms().keySet());
    for (Op op : ops) {
      rows.add(row(experiment, system, params, op.label(), repeats, m -> m.histograms().get(op)));
    }
    if (ops.size() > 1) {
      rows.add(row(experiment, system, params, "all", repeats, Measurement::all));
    }
    return rows;
  }

  private static ResultRow row(String experiment, String system, Map<String, String> params, String op,
      List<Measurement> repeats, java.util.function.Function<Measurement, Histogram> pick) {
    int n = repeats.size();
    double[] rate = new double[n];
    double[] secs = new double[n];
    double[] mean = new double[n];
    double[] p50 = new double[n];
    double[] p75 = new double[n];
    double[] p99 = new double[n];
    double[] p999 = new double[n];
    double[] max = new double[n];
    long ops = 0;
    long misses = 0;
    for (int i = 0; i < n; i++) {
      Measurement m = repeats.get(i);
      Histogram h = pick.apply(m);
      long count = h == null ? 0 : h.getTotalCount();
      ops += count;
      misses += op.equals("get") || op.equals("all") ? m.misses() : 0;
      secs[i] = m.seconds();
      rate[i] = m.nanos() == 0 ? 0 : count / m.seconds();
      mean[i] = h == null ? 0 : h.getMean() / 1e6;
      p50[i] = ms(h, 50);
      p75[i] = ms(h, 75);
      p99[i] = ms(h, 99);
      p999[i] = ms(h, 99.9);
      max[i] = h == null ? 0 : h.getMaxValue() / 1e6;
    }
    return new ResultRow(experiment, system, params, op, n, ops / n, median(secs), median(rate),
        Arrays.stream(rate).min().orElse(0), Arrays.stream(rate).max().orElse(0), median(mean), median(p50),
        median(p75), median(p99), median(p999), median(max), misses / n);
  }

  private static double ms(Histogram h, double percentile) {
    return h == null || h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile) / 1e6;
  }

  /** The median; for an even count, the mean of the two middle values. */
  public static double median(double[] values) {
    double[] s = values.clone();
    Arrays.sort(s);
    int m = s.length / 2;
    return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
  }

  /** The median of one figure over rows. */
  public static double median(List<ResultRow> rows, ToDoubleFunction<ResultRow> figure) {
    return median(rows.stream().mapToDouble(figure).toArray());
  }
}
