package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.kvstore.spi.EngineTable;

/** Waits in tests for a table's background work, as its statistics show it. */
final class StatsWait {
  private StatsWait() {}

  /**
   * Polls {@code t.stats().details()} every 10 ms until {@code done} holds; fails after 30 s with
   * {@code what} and the last statistics.
   *
   * @return the statistics that satisfied {@code done}
   */
  static Map<String, Long> until(EngineTable t, String what, Predicate<Map<String, Long>> done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    Map<String, Long> d = t.stats().details();
    while (!done.test(d)) {
      assertThat(System.nanoTime()).as("%s within 30 s: %s", what, d).isLessThan(deadline);
      Thread.sleep(10);
      d = t.stats().details();
    }
    return d;
  }

  /** Until a compaction has run and level 0 is empty. */
  static Map<String, Long> untilLevel0Compacted(EngineTable t) throws Exception {
    return until(t, "compaction", d -> d.get("compactions") >= 1 && d.get("level.0.files") == 0);
  }
}
