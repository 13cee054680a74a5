package org.kvstore.bench.load.preset;

import org.kvstore.bench.load.report.Report;

/**
 * One seed's experiment (or YCSB's core workloads), reproduced: it runs its measurements and adds
 * their rows and sections, with the seed's own figures, to the report.
 *
 * <p>Thread safety: one run at a time.
 */
public interface Preset {

  /** The subcommand and results directory name, e.g. {@code keksdb}. */
  String name();

  /** The report's title. */
  String title();

  void run(PresetContext context, Report report) throws Exception;
}
