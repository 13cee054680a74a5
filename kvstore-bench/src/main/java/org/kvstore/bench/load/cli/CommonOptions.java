package org.kvstore.bench.load.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options every subcommand takes: where results go, the scale, bounds and repetitions.
 *
 * <p>Thread safety: confined (filled by picocli, then read).
 */
final class CommonOptions {
  @Option(names = "--name", paramLabel = "NAME",
      description = "Results go to <results-dir>/<date>-<NAME> (default: the subcommand's name).")
  String name;

  @Option(names = "--results-dir", paramLabel = "DIR",
      description = "Where result directories are made (default: kvstore-bench/results of the checkout).")
  Path resultsDir;

  @Option(names = "--work-dir", paramLabel = "DIR",
      description = "Scratch space for stores and server logs, emptied as runs go (default: kvstore-bench/target/"
          + "loadgen-scratch, on the disk of the results).")
  Path workDir;

  @Option(names = "--scale", paramLabel = "F", defaultValue = "1",
      description = "Fraction of the seed's record and request counts, e.g. 0.01 for a quick run (default: ${DEFAULT-VALUE}).")
  double scale;

  @Option(names = "--repeat", paramLabel = "N", defaultValue = "1",
      description = "Measure each point N times; tables show the median and the spread of ops/s (default: ${DEFAULT-VALUE}).")
  int repeat;

  @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
      description = "Length of each duration-bounded run, e.g. 10s, 500ms, 3m (default: the seed's).")
  Duration duration;

  @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "1s",
      description = "Unmeasured warm-up before each duration-bounded run (default: ${DEFAULT-VALUE}).")
  Duration warmup;

  @Option(names = "--threads", paramLabel = "N[,N...]", split = ",",
      description = "Thread (client) counts instead of the seed's.")
  List<Integer> threads;

  @Option(names = "--cache-mib", paramLabel = "MIB",
      description = "Page buffer / block cache of embedded stores, MiB (default: the preset's).")
  Long cacheMib;

  @Option(names = "--memtable-mib", paramLabel = "MIB",
      description = "Memtable (write buffer) of embedded stores, MiB (default: the preset's).")
  Long memtableMib;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
      description = "Seed of the key choices and values (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--no-progress", description = "Show no progress bar.")
  boolean noProgress;

  Path resultsDir() {
    if (resultsDir != null) {
      return resultsDir;
    }
    String home = System.getProperty("kvstore.bench.home");
    Path root = home != null ? Path.of(home) : Path.of("");
    Path inCheckout = root.resolve("kvstore-bench").resolve("results");
    return Files.isDirectory(inCheckout) || home != null ? inCheckout : root.resolve("results");
  }

  Path workDir() {
    if (workDir != null) {
      return workDir;
    }
    return resultsDir().toAbsolutePath().getParent().resolve("target").resolve("loadgen-scratch");
  }
}
