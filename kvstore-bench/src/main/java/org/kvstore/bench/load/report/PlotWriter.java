package org.kvstore.bench.load.report;

import java.io.IOException;
import java.nio.file.Path;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a report's charts with XChart as PNG (for the Markdown report) and SVG (for print), headless;
 * a seed's series are dashed lines without markers.
 *
 * <p>Thread safety: stateless.
 */
public final class PlotWriter {
  private static final int WIDTH = 800;
  private static final int HEIGHT = 500;

  private PlotWriter() {}

  public static void write(Chart chart, Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(chart.title())
        .xAxisTitle(chart.xLabel()).yAxisTitle(chart.yLabel()).build();
    c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    boolean positive = chart.series().stream().flatMapToDouble(s -> java.util.Arrays.stream(s.x())).allMatch(v -> v > 0);
    c.getStyler().setXAxisLogarithmic(chart.logX() && positive);
    for (Chart.Series s : chart.series()) {
      if (s.x().length == 0) {
        continue;
      }
      XYSeries line = c.addSeries(s.name(), s.x(), s.y());
      line.setMarker(s.fromSeed() ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE);
      if (s.fromSeed()) {
        line.setLineStyle(SeriesLines.DASH_DASH);
      }
    }
    String base = dir.resolve(chart.fileName()).toString();
    BitmapEncoder.saveBitmap(c, base, BitmapFormat.PNG);
    VectorGraphicsEncoder.saveVectorGraphic(c, base, VectorGraphicsFormat.SVG);
  }
}
