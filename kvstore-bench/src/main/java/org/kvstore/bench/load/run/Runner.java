package org.kvstore.bench.load.run;

import java.io.PrintStream;
import java.util.Locale;
import org.kvstore.bench.load.driver.Driver;
import org.kvstore.bench.load.workload.KeyChooser;
import org.kvstore.bench.load.workload.KeyDistribution;
import org.kvstore.bench.load.workload.KeySpace;
import org.kvstore.bench.load.workload.Op;
import org.kvstore.bench.load.workload.OperationMix;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.Workload;

/**
 * The steps of one measurement: write the records (unmeasured, each once in random order), warm up
 * with the workload itself, then measure it; each step says what it does on the log.
 *
 * <p>Thread safety: thread-safe.
 */
public final class Runner {
  /** The preload's threads: enough to fill a store quickly, few enough for any machine. */
  private static final int PRELOAD_THREADS = 8;

  private final boolean progress;
  private final PrintStream log;
  private final long seed;

  public Runner(boolean progress, PrintStream log, long seed) {
    this.progress = progress;
    this.log = log;
    this.seed = seed;
  }

  public PrintStream log() {
    return log;
  }

  /** Writes records 0..records-1 once each, in random order. */
  public void preload(Driver driver, Workload w) throws InterruptedException {
    Workload load = w.toBuilder().name(w.name() + "-load").mix(OperationMix.only(Op.PUT))
        .distribution(KeyDistribution.SHUFFLED).threads(Math.min(PRELOAD_THREADS, Math.max(1, w.threads())))
        .pipelineDepth(1).targetOpsPerSecond(0).build();
    log.printf(Locale.ROOT, "  %s: preloading %d records into %s%n", w.name(), w.records(), driver.name());
    run(driver, load, new KeySpace(w.records()), RunBounds.ops(w.records(), 0), "preload");
  }

  /** Warms up (when the bounds have a warm-up), then measures {@code w} on a fresh key space. */
  public Measurement measure(Driver driver, Workload w, RunBounds bounds) throws InterruptedException {
    KeySpace space = new KeySpace(w.records());
    if (bounds.hasWarmup()) {
      run(driver, w, space, bounds.warmupBounds(), "warm-up");
    }
    Measurement m = run(driver, w, space, bounds, "measure");
    log.printf(Locale.ROOT, "  %s on %s: %d ops in %.3f s, %.0f ops/s%n", w.name(), driver.name(), m.ops(),
        m.seconds(), m.opsPerSecond());
    return m;
  }

  /** One bounded run of {@code w}, with a progress bar when it is long. */
  public Measurement run(Driver driver, Workload w, KeySpace space, RunBounds bounds, String step)
      throws InterruptedException {
    KeyChooser chooser = KeyChooser.of(w.distribution(), space, seed);
    try (Progress p = Progress.start(w.name() + " " + step + " " + driver.name(), bounds.ops(), bounds.duration(),
        progress)) {
      return new RunLoop(driver, w, space, chooser, seed).run(bounds, p);
    }
  }
}
