package org.kvstore.bench.load.report;

import java.util.List;

/**
 * A line chart of a report: series of (x, y) points, written as {@code fileName}.png and .svg.
 *
 * <p>Thread safety: immutable (the arrays are not changed after construction).
 */
public record Chart(String fileName, String title, String xLabel, String yLabel, boolean logX, List<Series> series) {
  public Chart {
    series = List.copyOf(series);
  }

  /** One line: a name and its points. */
  public record Series(String name, double[] x, double[] y) {
    public Series {
      if (x.length != y.length) {
        throw new IllegalArgumentException("series " + name + ": " + x.length + " x values, " + y.length + " y values");
      }
    }
  }
}
