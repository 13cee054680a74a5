package org.kvstore.bench.load.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a report as {@code report.md}, with its charts (PNG and SVG) and its CSV and JSON, into
 * one directory. Each section shows our tables, then our charts, then the seed's own figures,
 * marked as measured on other hardware.
 *
 * <p>Thread safety: stateless.
 */
public final class ReportWriter {
  public static final String MARKDOWN = "report.md";
  public static final String SEED_MARK = "measured on other hardware by the seed";

  private ReportWriter() {}

  public static Path write(Report report, Path dir) throws IOException {
    Files.createDirectories(dir);
    ResultWriter.write(report, dir);
    StringBuilder md = new StringBuilder();
    md.append("# ").append(report.title()).append("\n\n");
    for (String p : report.intro()) {
      md.append(p).append("\n\n");
    }
    md.append("- **Command:** `").append(report.command()).append("`\n");
    md.append("- **Machine:** ").append(report.machine().describe()).append("\n");
    md.append("- **Data:** [").append(ResultWriter.CSV).append("](").append(ResultWriter.CSV).append("), [")
        .append(ResultWriter.JSON).append("](").append(ResultWriter.JSON).append(")\n\n");
    for (Section s : report.sections()) {
      md.append("## ").append(s.heading()).append("\n\n");
      for (String p : s.paragraphs()) {
        md.append(p).append("\n\n");
      }
      for (ResultTable t : s.tables()) {
        table(md, t, "###");
      }
      for (Chart c : s.charts()) {
        PlotWriter.write(c, dir);
        md.append("![").append(c.title()).append("](").append(c.fileName()).append(".png) ([SVG](")
            .append(c.fileName()).append(".svg))\n\n");
      }
      if (!s.seedTables().isEmpty()) {
        md.append("### The seed's own figures (").append(SEED_MARK).append(")\n\n");
        String lastNote = null;
        for (ResultTable t : s.seedTables()) {
          // The seed's source note is the same under each of its tables: print it once.
          boolean repeat = t.note() != null && t.note().equals(lastNote);
          table(md, repeat ? new ResultTable(t.title(), t.headers(), t.rows(), "") : t, "####");
          lastNote = t.note();
        }
      }
    }
    Path file = dir.resolve(MARKDOWN);
    Files.writeString(file, md, StandardCharsets.UTF_8);
    return file;
  }

  private static void table(StringBuilder md, ResultTable t, String level) {
    md.append(level).append(' ').append(t.title()).append("\n\n");
    row(md, t.headers());
    md.append('|');
    for (int i = 0; i < t.headers().size(); i++) {
      md.append(i == 0 ? " --- |" : " ---: |");
    }
    md.append('\n');
    for (List<String> r : t.rows()) {
      row(md, r);
    }
    md.append('\n');
    if (t.note() != null && !t.note().isBlank()) {
      md.append(t.note()).append("\n\n");
    }
  }

  private static void row(StringBuilder md, List<String> cells) {
    md.append('|');
    for (String c : cells) {
      md.append(' ').append(c.replace("|", "\\|")).append(" |");
    }
    md.append('\n');
  }
}
