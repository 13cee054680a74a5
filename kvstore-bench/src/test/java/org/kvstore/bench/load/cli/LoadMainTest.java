package org.kvstore.bench.load.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvstore.bench.load.report.ResultWriter;

class LoadMainTest {
  @ParameterizedTest
  @ValueSource(strings = {"run", "ycsb", "keksdb", "toystore", "blitzdb", "blinkdb", "cs739"})
  void help_everySubcommand_printsItsUsage(String subcommand) {
    Cli c = Cli.run(subcommand, "--help");
    assertThat(c.exitCode()).isZero();
    assertThat(c.out()).contains("Usage: kvstore-bench " + subcommand).contains("--scale").contains("--repeat");
  }

  @Test
  void help_topLevel_listsTheSubcommands() {
    Cli c = Cli.run("--help");
    assertThat(c.exitCode()).isZero();
    assertThat(c.out()).contains("keksdb", "toystore", "blitzdb", "blinkdb", "cs739", "ycsb", "run");
  }

  @Test
  void run_badMix_failsWithTheReason(@TempDir Path dir) {
    Cli c = Cli.run("run", "--target", "memory", "--mix", "get=1,frob=2", "--results-dir", dir.toString(),
        "--work-dir", dir.resolve("w").toString(), "--no-progress");
    assertThat(c.exitCode()).isNotZero();
    assertThat(c.err()).contains("frob");
  }

  /** One in-process kvstore-server per target; each protocol's gets, puts, scans and atomic index writes. */
  @ParameterizedTest
  @ValueSource(strings = {"server:resp", "server:http", "server:thrift"})
  void run_serverTargets_everyProtocolServesTheWorkload(String target, @TempDir Path dir) throws Exception {
    boolean resp = target.endsWith("resp");
    String mix = resp ? "get=0.5,put=0.5" : "get=0.4,put=0.3,scan=0.3";
    Cli c = Cli.run("run", "--target", target, "--records", "300", "--ops", "600", "--threads", "2", "--mix", mix,
        "--indexes", resp ? "0" : "1", "--pipeline", resp ? "4" : "1", "--name", "srv", "--results-dir",
        dir.toString(), "--work-dir", dir.resolve("w").toString(), "--no-progress");
    assertThat(c.exitCode()).as(c.out() + c.err()).isZero();
    Path csv;
    try (Stream<Path> s = Files.list(dir)) {
      csv = s.filter(p -> p.getFileName().toString().endsWith("-srv")).findFirst().orElseThrow()
          .resolve(ResultWriter.CSV);
    }
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.stream().filter(l -> l.contains(",get,"))).singleElement().satisfies(l ->
        assertThat(l).endsWith(",0")); // every get found its preloaded key
  }

  /** Every CSV row's figures appear, printed the same, in its line of the report's table. */
  @Test
  void run_shortRun_reportNumbersMatchItsCsv(@TempDir Path dir) throws Exception {
    Cli c = Cli.run("run", "--target", "memory", "--records", "2000", "--ops", "20000", "--threads", "1,2",
        "--mix", "get=0.9,put=0.1", "--repeat", "2", "--name", "short", "--results-dir", dir.toString(),
        "--work-dir", dir.resolve("w").toString(), "--no-progress");
    assertThat(c.exitCode()).as(c.err()).isZero();
    Path out;
    try (Stream<Path> s = Files.list(dir)) {
      out = s.filter(p -> p.getFileName().toString().endsWith("-short")).findFirst().orElseThrow();
    }
    List<String> csv = Files.readAllLines(out.resolve(ResultWriter.CSV));
    String md = Files.readString(out.resolve("report.md"));
    assertThat(csv).hasSize(1 + 2 * 3); // header; get, put, all per thread count
    assertThat(md).contains("bin/kvstore-bench run --target memory").contains("fsync");
    List<String> header = List.of(csv.get(0).split(","));
    // The report's table columns and the CSV columns they print.
    List<String> mdColumns = List.of("threads", "seconds", "mean_ms", "ops_per_sec", "p50_ms", "p75_ms", "p99_ms",
        "p999_ms", "misses");
    int checked = 0;
    for (String line : csv.subList(1, csv.size())) {
      String[] cells = line.split(",");
      String threads = cells[header.indexOf("params")].replace("threads=", "");
      String op = cells[header.indexOf("op")];
      String table = md.substring(md.indexOf("### memory " + op + "\n"));
      List<String> mdRow = table.lines().filter(l -> l.startsWith("| " + threads + " |")).findFirst()
          .map(l -> List.of(l.substring(2, l.length() - 2).split(" \\| "))).orElseThrow();
      for (int i = 1; i < mdColumns.size(); i++) {
        assertThat(mdRow.get(i)).as(op + " threads=" + threads + " " + mdColumns.get(i))
            .isEqualTo(cells[header.indexOf(mdColumns.get(i))]);
        checked++;
      }
      assertThat(Integer.parseInt(cells[header.indexOf("repeats")])).isEqualTo(2);
    }
    assertThat(checked).isEqualTo(6 * 8);
    assertThat(out.resolve("custom-ops.png")).exists();
    assertThat(out.resolve("custom-ops.svg")).exists();
    assertThat(Files.readString(out.resolve(ResultWriter.JSON))).contains("\"machine\"").contains("\"cores\"");
  }
}
