package org.kvstore.bench.load.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.bench.load.server.RedisServerProcess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every preset at a tiny scale, end to end: the command exits 0 and writes a report with its
 * tables, the seed's figures and its plots. With {@code -Pbench} (kvstore.test.scale=bench) they
 * run at the seeds' full scale instead.
 */
class PresetSmokeTest {
  private static final Logger LOG = LoggerFactory.getLogger(PresetSmokeTest.class);
  private static final boolean FULL = "bench".equals(System.getProperty("kvstore.test.scale"));

  @TempDir
  Path dir;

  private Path run(String preset, String... tiny) throws Exception {
    List<String> args = new ArrayList<>(List.of(preset, "--results-dir", dir.toString(), "--work-dir",
        dir.resolve("work").toString(), "--no-progress"));
    if (!FULL) {
      args.addAll(List.of(tiny));
    }
    Cli c = Cli.run(args.toArray(new String[0]));
    assertThat(c.exitCode()).as(c.out() + c.err()).isZero();
    Path out;
    try (Stream<Path> s = Files.list(dir)) {
      out = s.filter(p -> p.getFileName().toString().endsWith("-" + preset)).findFirst().orElseThrow();
    }
    assertThat(out.resolve("report.md")).exists();
    assertThat(out.resolve("results.csv")).exists();
    assertThat(Files.readAllLines(out.resolve("results.csv")).size()).isGreaterThan(1);
    try (Stream<Path> s = Files.list(out)) {
      List<String> names = s.map(p -> p.getFileName().toString()).toList();
      assertThat(names.stream().filter(n -> n.endsWith(".png")).count())
          .isEqualTo(names.stream().filter(n -> n.endsWith(".svg")).count());
    }
    assertThat(dir.resolve("work").resolve(preset)).doesNotExist();
    return out.resolve("report.md");
  }

  @Test
  void keksdb_tiny_reportsEveryStoreAndTheSeedTables() throws Exception {
    String md = Files.readString(run("keksdb", "--scale", "0.0002", "--threads", "1,4", "--cache-mib", "8",
        "--memtable-mib", "4"));
    assertThat(md).contains("### bplus put", "### lsm get", "### rocksdb get", "measured on other hardware by the seed",
        "keksdb-put-ops.png", "keksdb-get-seconds.png", "missing");
  }

  @Test
  void toystore_tiny_reportsTheFractionOfTheMemoryRate() throws Exception {
    String md = Files.readString(run("toystore", "--scale", "0.01", "--threads", "2", "--duration", "300ms",
        "--warmup", "100ms"));
    assertThat(md).contains("| memory | none |", "| lsm | sync |", "| lsm | periodic |", "100.0%", "170849.75");
  }

  @Test
  void blitzdb_tiny_reportsEachIndexCount() throws Exception {
    String md = Files.readString(run("blitzdb", "--scale", "0.001", "--threads", "1,2,4"));
    assertThat(md).contains("lsm +0 indexes", "lsm +1 index", "lsm +3 indexes", "86000");
  }

  @Test
  void ycsb_tiny_runsAllSixWorkloads() throws Exception {
    String md = Files.readString(run("ycsb", "--scale", "0.001", "--threads", "2", "--duration", "200ms",
        "--warmup", "0s", "--stores", "lsm,rocksdb", "--cache-mib", "8", "--memtable-mib", "4"));
    for (String w : List.of("| A |", "| B |", "| C |", "| D |", "| E |", "| F |")) {
      assertThat(md).contains(w);
    }
    assertThat(md).contains("| scan |", "| rmw |", "| insert |");
  }

  @Test
  void blinkdb_tiny_comparesWithRedis() throws Exception {
    boolean redis = RedisServerProcess.onPath("redis-server").isPresent();
    if (!redis) {
      LOG.warn("redis-server is not on the PATH: the blinkdb smoke run has no Redis columns");
    }
    String md = Files.readString(run("blinkdb", "--scale", "0.001", "--threads", "2,5", "--server-heap", "256m"));
    assertThat(md).contains("2 parallel clients", "SET operation", "GET operation", "kvstore req/s");
    if (redis) {
      assertThat(md).contains("redis req/s", "kvstore / redis");
    }
  }

  @Test
  void blinkdb_driverClient_runsWithoutRedisBenchmark() throws Exception {
    Assumptions.assumeFalse(FULL, "the full-scale run is blinkdb_tiny_comparesWithRedis");
    String md = Files.readString(run("blinkdb", "--scale", "0.001", "--threads", "2", "--client", "driver",
        "--server-heap", "256m"));
    assertThat(md).contains("RESP driver", "kvstore req/s");
  }

  @Test
  void cs739_tiny_runsAllThreeExperimentsOverEveryProtocol() throws Exception {
    String md = Files.readString(run("cs739", "--scale", "0.001", "--threads", "1,4", "--duration", "100ms",
        "--warmup", "0s", "--durability", "none", "--server-heap", "256m"));
    assertThat(md).contains("Exp1", "Exp2", "Exp3", "### resp", "### http", "### thrift", "| clean stop |",
        "| kill -9 |", "cs739-exp3-read-only.png", "40.47");
  }
}
