package org.kvstore.bench.load.preset;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import org.kvstore.bench.load.report.Chart;
import org.kvstore.bench.load.report.Numbers;
import org.kvstore.bench.load.report.ResultRow;
import org.kvstore.bench.load.report.ResultTable;

/**
 * The tables and charts several presets share: a row per parameter value with the total time,
 * mean, ops/s and percentiles, as the KeksDB seed prints them.
 *
 * <p>Thread safety: stateless.
 */
final class LatencyTables {
  static final List<String> FIGURES = List.of("total s", "mean ms", "ops/s", "p50 ms", "p75 ms", "p99 ms",
      "p99.9 ms", "misses");

  private LatencyTables() {}

  /** A table of {@code rows} with the parameter {@code key} first; the spread column when repeated. */
  static ResultTable table(String title, String key, List<ResultRow> rows, String note) {
    boolean repeated = rows.stream().anyMatch(r -> r.repeats() > 1);
    List<String> headers = new ArrayList<>();
    headers.add(key);
    headers.addAll(FIGURES);
    if (repeated) {
      headers.add("ops/s spread");
    }
    List<List<String>> cells = new ArrayList<>();
    for (ResultRow r : rows) {
      List<String> c = new ArrayList<>(List.of(r.param(key), Numbers.seconds(r.seconds()), Numbers.millis(r.meanMs()),
          Numbers.rate(r.opsPerSecond()), Numbers.millis(r.p50Ms()), Numbers.millis(r.p75Ms()),
          Numbers.millis(r.p99Ms()), Numbers.millis(r.p999Ms()), Long.toString(r.misses())));
      if (repeated) {
        c.add(Numbers.percent(r.spread()));
      }
      cells.add(c);
    }
    return new ResultTable(title, headers, cells, note);
  }

  /** One series per system: {@code y} of the rows that match, against parameter {@code key}. */
  static Chart chart(String file, String title, String key, String yLabel, List<String> systems,
      List<ResultRow> rows, Predicate<ResultRow> match, Function<ResultRow, Double> y, boolean logX) {
    List<Chart.Series> series = new ArrayList<>();
    for (String system : systems) {
      List<ResultRow> mine = rows.stream().filter(r -> r.system().equals(system)).filter(match).toList();
      series.add(new Chart.Series(system, mine.stream().mapToDouble(r -> Double.parseDouble(r.param(key))).toArray(),
          mine.stream().mapToDouble(y::apply).toArray()));
    }
    return new Chart(file, title, key, yLabel, logX, series);
  }
}
