package org.kvstore.server.soak;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/**
 * The pass/fail rules of a soak run (RELIABILITY.md T13), applied to its samples. The first fifth of
 * the run, at least a minute, is warm-up (the key set fills, the JIT compiles, the caches and the
 * worker pool grow) and is only reported; after it:
 *
 * <ul>
 *   <li>heap after a full collection and RSS grow by less than 5 % per 10 minutes, from a
 *       least-squares line through the samples after warm-up (refitted without outliers, see
 *       {@link #slopePercentPer10Min}), relative to their mean; a run fails when the slope less two
 *       of its standard errors reaches the limit (see {@link Slope#exceeds});
 *   <li>open file descriptors stay within ±10 and threads within ±2 of their level at warm-up end (the
 *       median of the warm-up's last minute of samples). The descriptors checked are all but those on
 *       the store's live files under the data directory: how many SSTables and log segments are open
 *       follows the LSM's shape (level 0 fills to its trigger, a compaction holds its inputs and
 *       outputs at once) and swings by more than ten within a minute, leak or not, while what a leak
 *       leaves behind is counted: a socket, a pipe, a file outside the store, or a store file
 *       that was deleted but is still open. The live store files are reported beside them;
 *   <li>the log never exceeds 2 × the checkpoint trigger (checked over the whole run), and the LSM
 *       table's files never exceed 2 × its last level's (space amplification);
 *   <li>the p99 latency of the last fifth of the run is at most 2 × that of the first fifth after
 *       warm-up (each over every request of those windows, not a mean of the windows' p99s);
 *   <li>no request failed, and every window after warm-up completed requests.
 * </ul>
 *
 * <p>Thread safety: immutable (a static function).
 */
final class SoakAnalysis {
  private SoakAnalysis() {}

  /** The limits of T13. */
  record Targets(double maxSlopePercentPer10Min, int fdTolerance, int threadTolerance, long maxWalBytes,
      double maxSpaceAmplification, double maxP99Ratio) {
    static Targets t13(long checkpointLogBytes) {
      return new Targets(5.0, 10, 2, 2 * checkpointLogBytes, 2.0, 2.0);
    }
  }

  /** One rule's outcome. */
  record Check(String name, boolean passed, String detail) {
    @Override
    public String toString() {
      return (passed ? "PASS " : "FAIL ") + name + ": " + detail;
    }
  }

  /** One metric's value at warm-up end and at the end, and its slope after warm-up. */
  record Trend(String metric, String unit, double atWarmUpEnd, double atEnd, double slopePercentPer10Min) {}

  /** Every check and every metric's trend. */
  record Result(double warmUpSeconds, List<Check> checks, List<Trend> trends) {
    boolean passed() {
      return checks.stream().allMatch(Check::passed);
    }

    List<Check> failures() {
      return checks.stream().filter(c -> !c.passed()).toList();
    }

    /** The trends as a Markdown table. */
    String trendTable() {
      StringBuilder sb = new StringBuilder();
      sb.append("| metric | at warm-up end | at end | slope after warm-up, % per 10 min |\n");
      sb.append("|---|---:|---:|---:|\n");
      for (Trend t : trends) {
        sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", t.metric(),
            format(t.atWarmUpEnd(), t.unit()), format(t.atEnd(), t.unit()),
            Double.isNaN(t.slopePercentPer10Min()) ? "–"
                : String.format(Locale.ROOT, "%+.1f", t.slopePercentPer10Min())));
      }
      return sb.toString();
    }

    private static String format(double v, String unit) {
      return switch (unit) {
        case "MiB" -> String.format(Locale.ROOT, "%.1f MiB", v / (1 << 20));
        case "ms" -> String.format(Locale.ROOT, "%.2f ms", v / 1000.0);
        case "/s" -> String.format(Locale.ROOT, "%,.0f/s", v);
        case "x" -> String.format(Locale.ROOT, "x%.2f", v);
        default -> String.format(Locale.ROOT, "%.0f", v);
      };
    }
  }

  /** The warm-up of a run of {@code runSeconds}: its first fifth, at least a minute. */
  static double warmUpSeconds(double runSeconds) {
    return Math.max(60, runSeconds / 5);
  }

  /**
   * Applies the rules to {@code samples} (in time order) of a run that lasted {@code runSeconds}.
   */
  static Result analyse(List<SoakSample> samples, double runSeconds, Targets targets) {
    double warmUp = warmUpSeconds(runSeconds);
    double fifth = runSeconds / 5;
    List<SoakSample> after = samples.stream().filter(s -> s.elapsedSeconds() > warmUp).toList();
    SoakSample baseline = null;
    for (SoakSample s : samples) {
      if (s.elapsedSeconds() <= warmUp) {
        baseline = s;
      }
    }
    List<Check> checks = new ArrayList<>();
    if (after.size() < 3 || baseline == null) {
      checks.add(new Check("samples", false, after.size() + " samples after a warm-up of " + warmUp
          + " s, and " + (baseline == null ? "none" : "one") + " at its end; the rules need 3 and 1"));
      return new Result(warmUp, checks, List.of());
    }
    SoakSample last = after.get(after.size() - 1);

    // The heap outside the memtables (SoakSample#heapOutsideCachesBytes): they are bounded by a
    // setting, and their swings are no leak.
    checks.add(slopeCheck("heap after GC slope", slope(after, SoakSample::heapOutsideCachesBytes), targets));
    checks.add(slopeCheck("RSS slope", slope(after, SoakSample::rssBytes), targets));
    Check fds = within("open file descriptors", after, levelAt(samples, warmUp, SoakSample::otherFds),
        SoakSample::otherFds, targets.fdTolerance());
    checks.add(new Check(fds.name(), fds.passed(), fds.detail() + String.format(Locale.ROOT,
        ", live store files not counted (%d to %d of them)", after.stream().mapToInt(SoakSample::storeFileFds).min()
            .orElse(0), after.stream().mapToInt(SoakSample::storeFileFds).max().orElse(0))));
    checks.add(within("threads", after, levelAt(samples, warmUp, SoakSample::threads), SoakSample::threads,
        targets.threadTolerance()));

    long maxWal = samples.stream().mapToLong(SoakSample::walBytes).max().orElse(0);
    checks.add(new Check("log size", maxWal <= targets.maxWalBytes(),
        String.format(Locale.ROOT, "at most %.1f MiB (limit %.1f MiB)", maxWal / 1048576.0,
            targets.maxWalBytes() / 1048576.0)));

    double maxAmp = after.stream().mapToDouble(SoakSample::spaceAmplification).max().orElse(0);
    checks.add(new Check("space amplification", maxAmp <= targets.maxSpaceAmplification(), String.format(
        Locale.ROOT, "at most x%.2f after warm-up (limit x%.1f)", maxAmp, targets.maxSpaceAmplification())));

    Histogram first = merged(after, warmUp, warmUp + fifth);
    Histogram end = merged(after, runSeconds - fifth, Double.MAX_VALUE);
    if (first.getTotalCount() == 0 || end.getTotalCount() == 0) {
      checks.add(new Check("p99 latency", false, "no requests in the first or the last fifth after warm-up"));
    } else {
      long p99First = first.getValueAtPercentile(99);
      long p99Last = end.getValueAtPercentile(99);
      double ratio = (double) p99Last / Math.max(1, p99First);
      checks.add(new Check("p99 latency", ratio <= targets.maxP99Ratio(), String.format(Locale.ROOT,
          "%d µs in the last fifth, %d µs in the first after warm-up: x%.2f (limit x%.1f)", p99Last, p99First,
          ratio, targets.maxP99Ratio())));
    }

    long errors = samples.stream().mapToLong(SoakSample::errors).sum();
    checks.add(new Check("errors", errors == 0, errors + " failed requests"));
    long idle = after.stream().filter(s -> s.requests() == 0).count();
    checks.add(new Check("progress", idle == 0, idle + " windows after warm-up without a completed request"));

    List<Trend> trends = List.of(
        trend("heap after full GC", "MiB", after, baseline, last, SoakSample::heapAfterGcBytes),
        trend("  of it outside memtables", "MiB", after, baseline, last,
            SoakSample::heapOutsideCachesBytes),
        trend("RSS", "MiB", after, baseline, last, SoakSample::rssBytes),
        trend("JVM direct buffers", "MiB", after, baseline, last, SoakSample::jvmDirectBytes),
        trend("Netty pooled direct", "MiB", after, baseline, last, SoakSample::nettyDirectBytes),
        trend("open file descriptors", "", after, baseline, last, SoakSample::openFds),
        trend("  of them on live store files", "", after, baseline, last, SoakSample::storeFileFds),
        trend("threads", "", after, baseline, last, SoakSample::threads),
        trend("data directory", "MiB", after, baseline, last, SoakSample::dataDirBytes),
        trend("log (wal/)", "MiB", after, baseline, last, SoakSample::walBytes),
        trend("memtables", "MiB", after, baseline, last, SoakSample::memtableBytes),
        trend("block cache", "MiB", after, baseline, last, SoakSample::blockCacheBytes),
        trend("space amplification", "x", after, baseline, last, SoakSample::spaceAmplification),
        trend("p50 latency", "ms", after, baseline, last, SoakSample::p50Micros),
        trend("p99 latency", "ms", after, baseline, last, SoakSample::p99Micros),
        trend("throughput", "/s", after, baseline, last, SoakSample::throughputPerSecond));
    return new Result(warmUp, checks, trends);
  }

  /**
   * The slope of {@code metric} over time, scaled to 10 minutes and divided by the metric's mean, in
   * percent (NaN when the mean is 0): a least-squares line, refitted (three rounds) without the
   * samples whose residuals lie beyond 4 median absolute deviations, at most a fifth of them.
   * A bounded part of the heap that empties and refills (the block cache losing a compacted file's
   * blocks) gives a few samples far below the rest; in a short run they would tilt the line by more
   * than the limit wherever they fall. A steady growth moves every sample and is not discarded.
   */
  static double slopePercentPer10Min(List<SoakSample> samples, ToDoubleFunction<SoakSample> metric) {
    return slope(samples, metric).percentPer10Min();
  }

  /**
   * A fitted slope, in percent of the mean per 10 minutes, and its standard error (from the
   * residuals of the samples the fit kept).
   */
  record Slope(double percentPer10Min, double standardError) {
    /**
     * Whether the growth is shown to exceed {@code limit}: the slope less two standard errors
     * is above it. Over an hour of samples the standard error is a small fraction of the limit and
     * this is close to the slope itself; over the two minutes after a 3-minute run's warm-up, the heap's
     * few-MiB swings from sample to sample (the block cache's fill, a compaction's buffers at the
     * moment of the collection) make it several percent, and a line through them alone would
     * pass or fail by chance.
     */
    boolean exceeds(double limit) {
      return percentPer10Min - 2 * standardError >= limit;
    }
  }

  /** As {@link #slopePercentPer10Min}, with the slope's standard error. */
  static Slope slope(List<SoakSample> samples, ToDoubleFunction<SoakSample> metric) {
    int n = samples.size();
    double[] t = new double[n];
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      t[i] = samples.get(i).elapsedSeconds();
      v[i] = metric.applyAsDouble(samples.get(i));
    }
    double[] line = leastSquares(t, v, null);
    if (line == null) {
      return new Slope(Double.NaN, Double.NaN);
    }
    boolean[] dropped = null;
    // Each round measures the residuals from the latest line, so outliers that tilted the first
    // line (and hid among the residuals it gave the other samples) show up in the next.
    for (int round = 0; round < 3; round++) {
      double[] deviations = new double[n];
      for (int i = 0; i < n; i++) {
        deviations[i] = v[i] - (line[0] + line[1] * t[i]);
      }
      double median = median(deviations);
      for (int i = 0; i < n; i++) {
        deviations[i] = Math.abs(deviations[i] - median);
      }
      double mad = median(deviations);
      boolean[] outliers = new boolean[n];
      Integer[] byDeviation = new Integer[n];
      for (int i = 0; i < n; i++) {
        byDeviation[i] = i;
      }
      Arrays.sort(byDeviation, (a, b) -> Double.compare(deviations[b], deviations[a]));
      for (int k = 0; k < n / 5 && deviations[byDeviation[k]] > 4 * mad; k++) {
        outliers[byDeviation[k]] = true;
      }
      double[] refit = leastSquares(t, v, outliers);
      if (refit == null) {
        break;
      }
      line = refit;
      dropped = outliers;
    }
    double mean = 0;
    for (double x : v) {
      mean += x / n;
    }
    if (mean == 0) {
      return new Slope(Double.NaN, Double.NaN);
    }
    // standard error of a least-squares slope: sqrt(sum of squared residuals / (m - 2) / Sxx)
    int m = 0;
    double meanT = 0;
    for (int i = 0; i < n; i++) {
      if (dropped == null || !dropped[i]) {
        m++;
        meanT += t[i];
      }
    }
    meanT /= m;
    double squares = 0;
    double sxx = 0;
    for (int i = 0; i < n; i++) {
      if (dropped == null || !dropped[i]) {
        double r = v[i] - (line[0] + line[1] * t[i]);
        squares += r * r;
        sxx += (t[i] - meanT) * (t[i] - meanT);
      }
    }
    double error = m > 2 ? Math.sqrt(squares / (m - 2) / sxx) : Double.NaN;
    double scale = 600 / mean * 100;
    return new Slope(line[1] * scale, error * scale);
  }

  /** {intercept, slope} of the least-squares line through the points not {@code dropped}, or null. */
  private static double[] leastSquares(double[] t, double[] v, boolean[] dropped) {
    int n = 0;
    double meanT = 0;
    double meanV = 0;
    for (int i = 0; i < t.length; i++) {
      if (dropped == null || !dropped[i]) {
        n++;
        meanT += t[i];
        meanV += v[i];
      }
    }
    if (n < 2) {
      return null;
    }
    meanT /= n;
    meanV /= n;
    double sxy = 0;
    double sxx = 0;
    for (int i = 0; i < t.length; i++) {
      if (dropped == null || !dropped[i]) {
        sxy += (t[i] - meanT) * (v[i] - meanV);
        sxx += (t[i] - meanT) * (t[i] - meanT);
      }
    }
    if (sxx == 0) {
      return null;
    }
    double slope = sxy / sxx;
    return new double[] {meanV - slope * meanT, slope};
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** The median of {@code metric} over the samples of the last minute up to {@code warmUp}. */
  static double levelAt(List<SoakSample> samples, double warmUp, ToDoubleFunction<SoakSample> metric) {
    double[] v = samples.stream().filter(s -> s.elapsedSeconds() <= warmUp && s.elapsedSeconds() > warmUp - 60)
        .mapToDouble(metric).sorted().toArray();
    if (v.length == 0) {
      throw new IllegalArgumentException("no sample in the last minute of the warm-up");
    }
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static Check slopeCheck(String name, Slope slope, Targets targets) {
    double limit = targets.maxSlopePercentPer10Min();
    return new Check(name, !Double.isNaN(slope.percentPer10Min()) && !slope.exceeds(limit),
        String.format(Locale.ROOT, "%+.2f %% per 10 min, standard error %.2f (limit %.1f, exceeded when the slope"
            + " less two standard errors reaches it)", slope.percentPer10Min(), slope.standardError(), limit));
  }

  private static Check within(String name, List<SoakSample> after, double base,
      ToDoubleFunction<SoakSample> metric, int tolerance) {
    double min = after.stream().mapToDouble(metric).min().orElse(base);
    double max = after.stream().mapToDouble(metric).max().orElse(base);
    boolean ok = max - base <= tolerance && base - min <= tolerance;
    return new Check(name, ok, String.format(Locale.ROOT, "%.0f at warm-up end, then %.0f to %.0f (limit ±%d)",
        base, min, max, tolerance));
  }

  private static Histogram merged(List<SoakSample> samples, double fromExclusive, double toInclusive) {
    Histogram h = new Histogram(3);
    for (SoakSample s : samples) {
      if (s.elapsedSeconds() > fromExclusive && s.elapsedSeconds() <= toInclusive) {
        h.add(s.latencyMicros());
      }
    }
    return h;
  }

  private static Trend trend(String name, String unit, List<SoakSample> after, SoakSample baseline, SoakSample last,
      ToDoubleFunction<SoakSample> metric) {
    return new Trend(name, unit, metric.applyAsDouble(baseline), metric.applyAsDouble(last),
        slopePercentPer10Min(after, metric));
  }
}
