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

  /** One line: a name and its points; a seed's line (measured elsewhere) is drawn dashed. */
  public record Series(String name, double[] x, double[] y, boolean fromSeed) {
    public Series {
      if (x.length != y.length) {
        throw new IllegalArgumentException("series " + name + ": " + x.length + " x values, " + y.length + " y values");
      }
    }

    public Series(String name, double[] x, double[] y) {
      this(name, x, y, false);
    }

    /** Columns {@code xColumn} and {@code yColumn} of a seed's table, named "name (seed)". */
    public static Series fromSeed(String name, ResultTable seed, String xColumn, String yColumn) {
      int xi = seed.headers().indexOf(xColumn);
      int yi = seed.headers().indexOf(yColumn);
      if (xi < 0 || yi < 0) {
        throw new IllegalArgumentException("seed table '" + seed.title() + "' has no column " + xColumn + " or " + yColumn);
      }
      return new Series(name + " (seed)", seed.rows().stream().mapToDouble(r -> Double.parseDouble(r.get(xi))).toArray(),
          seed.rows().stream().mapToDouble(r -> Double.parseDouble(r.get(yi))).toArray(), true);
    }
  }
}
