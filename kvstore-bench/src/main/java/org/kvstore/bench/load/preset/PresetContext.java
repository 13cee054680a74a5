package org.kvstore.bench.load.preset;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.kvstore.bench.load.driver.StoreSizes;
import org.kvstore.bench.load.run.Runner;

/**
 * What every preset is given: the scale of its data, how often to repeat each measurement, bounds
 * the user overrode (null: the preset's own), a scratch directory for stores and server logs, and
 * the {@link Runner}.
 *
 * @param scale the fraction of the seed's record and request counts (1 = as the seed)
 * @param repeat measurements per point; the report shows their median and spread
 * @param duration a run's length for duration-bounded presets; null: the preset's (the seed's)
 * @param warmup the warm-up before each measurement
 * @param threads thread or client counts; null: the preset's (the seed's)
 * @param sizes cache and memtable sizes of embedded stores; null: the preset's
 * @param scratch where stores and server logs go; emptied as the preset goes
 * @param runner runs and logs the measurements
 *
 * <p>Thread safety: immutable.
 */
public record PresetContext(double scale, int repeat, Duration duration, Duration warmup, List<Integer> threads,
    StoreSizes sizes, Path scratch, Runner runner) {

  public PresetContext {
    if (scale <= 0) {
      throw new IllegalArgumentException("scale must be positive, was " + scale);
    }
    if (repeat < 1) {
      throw new IllegalArgumentException("repeat must be at least 1, was " + repeat);
    }
    threads = threads == null ? null : List.copyOf(threads);
    warmup = warmup == null ? Duration.ZERO : warmup;
  }

  /** {@code count} scaled, at least {@code min}. */
  public long scaled(long count, long min) {
    return Math.max(min, Math.round(count * scale));
  }

  public Duration durationOr(Duration preset) {
    return duration != null ? duration : preset;
  }

  public List<Integer> threadsOr(List<Integer> preset) {
    return threads != null ? threads : preset;
  }

  public StoreSizes sizesOr(StoreSizes preset) {
    return sizes != null ? sizes : preset;
  }

  public PrintStream log() {
    return runner.log();
  }

  /** An empty scratch directory named {@code name}. */
  public Path freshDir(String name) {
    Path dir = scratch.resolve(name);
    try {
      if (Files.exists(dir)) {
        try (Stream<Path> s = Files.walk(dir)) {
          for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        }
      }
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot empty " + dir, e);
    }
  }
}
