package org.kvstore.bench.load.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.stream.Stream;
import org.kvstore.bench.load.driver.StoreSizes;
import org.kvstore.bench.load.preset.Preset;
import org.kvstore.bench.load.preset.PresetContext;
import org.kvstore.bench.load.report.MachineInfo;
import org.kvstore.bench.load.report.Report;
import org.kvstore.bench.load.report.ReportWriter;
import org.kvstore.bench.load.run.Runner;

/**
 * Runs a preset with the common options and writes its report to
 * {@code <results-dir>/<date>-<name>/}; the scratch directory is removed afterwards.
 *
 * <p>Thread safety: stateless.
 */
final class PresetRunner {
  private PresetRunner() {}

  static Path run(Preset preset, CommonOptions o, String command, PrintStream out) throws Exception {
    String name = o.name != null ? o.name : preset.name();
    Path dir = o.resultsDir().resolve(LocalDate.now() + "-" + name);
    Path scratch = o.workDir().resolve(name);
    Files.createDirectories(scratch);
    try {
      MachineInfo machine = MachineInfo.probe(scratch);
      Report report = new Report(name, preset.title(), command, machine);
      StoreSizes sizes = null;
      if (o.cacheMib != null || o.memtableMib != null) {
        sizes = new StoreSizes((o.cacheMib != null ? o.cacheMib : 16) << 20, (o.memtableMib != null ? o.memtableMib : 8) << 20);
      }
      PresetContext ctx = new PresetContext(o.scale, o.repeat, o.duration, o.warmup, o.threads, sizes, scratch,
          new Runner(!o.noProgress, out, o.seed));
      out.println(preset.name() + ": " + preset.title());
      preset.run(ctx, report);
      Path file = ReportWriter.write(report, dir);
      out.println("report: " + file);
      return file;
    } finally {
      deleteTree(scratch);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
