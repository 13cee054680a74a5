package org.kvstore.server.soak;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a soak run's samples as CSV ({@code samples.csv}, one row per 10-second window) and as one
 * PNG of eight charts over time ({@code soak.png}: heap, RSS, direct memory, descriptors and threads,
 * disk, space amplification, latency, throughput), with the warm-up's end marked.
 *
 * <p>Thread safety: a static function.
 */
final class SoakReport {
  private static final double MIB = 1 << 20;

  private SoakReport() {}

  static void writeCsv(List<SoakSample> samples, Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(String.join(",", SoakSample.CSV_COLUMNS));
    for (SoakSample s : samples) {
      lines.add(s.csvLine());
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  static void writePng(List<SoakSample> samples, double warmUpSeconds, String title, Path file) throws IOException {
    double warmUpMinutes = warmUpSeconds / 60;
    List<XYChart> charts = List.of(
        chart(title + ": heap after full GC", "MiB", warmUpMinutes, samples,
            series("heap after full GC", s -> s.heapAfterGcBytes() / MIB),
            series("block cache", s -> s.blockCacheBytes() / MIB),
            series("memtables", s -> s.memtableBytes() / MIB)),
        chart("resident set size", "MiB", warmUpMinutes, samples, series("RSS", s -> s.rssBytes() / MIB)),
        chart("direct memory", "MiB", warmUpMinutes, samples,
            series("JVM direct buffers", s -> s.jvmDirectBytes() / MIB),
            series("Netty pooled arenas", s -> s.nettyDirectBytes() / MIB)),
        chart("descriptors and threads", "count", warmUpMinutes, samples,
            series("open file descriptors", SoakSample::openFds),
            series("of them on live store files", SoakSample::storeFileFds), series("threads", SoakSample::threads)),
        chart("disk", "MiB", warmUpMinutes, samples,
            series("data directory", s -> s.dataDirBytes() / MIB), series("log (wal/)", s -> s.walBytes() / MIB)),
        chart("LSM space amplification", "files / last level", warmUpMinutes, samples,
            series("space amplification", SoakSample::spaceAmplification)),
        chart("latency per 10 s window", "ms", warmUpMinutes, samples,
            series("p50", s -> s.p50Micros() / 1000.0), series("p99", s -> s.p99Micros() / 1000.0),
            series("max", s -> s.maxMicros() / 1000.0)),
        chart("throughput", "requests/s", warmUpMinutes, samples,
            series("completed", SoakSample::throughputPerSecond)));
    charts.get(5).getStyler().setYAxisMin(1.0);
    charts.get(6).getStyler().setYAxisLogarithmic(true).setYAxisMin(null);
    BitmapEncoder.saveBitmap(charts, 4, 2, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  private record Series(String name, ToDoubleFunction<SoakSample> value) {}

  private static Series series(String name, ToDoubleFunction<SoakSample> value) {
    return new Series(name, value);
  }

  private static XYChart chart(String title, String unit, double warmUpMinutes, List<SoakSample> samples,
      Series... series) {
    XYChart chart = new XYChartBuilder().width(560).height(260).title(title).xAxisTitle("minutes")
        .yAxisTitle(unit).build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS).setLegendLayout(Styler.LegendLayout.Horizontal)
        .setChartBackgroundColor(Color.WHITE);
    // From zero: a flat line should look flat, and the slopes are in the summary's table.
    chart.getStyler().setXAxisDecimalPattern("0.#").setXAxisMin(0.0).setYAxisMin(0.0);
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line).setMarkerSize(0);
    chart.getStyler().setAnnotationLineColor(Color.GRAY).setAnnotationLineStroke(
        new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {4, 4}, 0));
    double[] minutes = samples.stream().mapToDouble(s -> s.elapsedSeconds() / 60).toArray();
    for (Series s : series) {
      double[] values = samples.stream().mapToDouble(s.value()).map(v -> Math.max(v, 1e-3)).toArray();
      chart.addSeries(s.name(), minutes, values).setMarker(SeriesMarkers.NONE);
    }
    chart.addAnnotation(new AnnotationLine(warmUpMinutes, true, false));
    return chart;
  }
}
