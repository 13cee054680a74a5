package org.kvstore.bench.load.workload;

import java.time.Duration;

/**
 * When a run stops: after {@code ops} operations over all threads (when positive), else after
 * {@code duration}; before it, a warm-up of the same workload that is not measured.
 *
 * <p>Thread safety: immutable.
 */
public record RunBounds(Duration duration, long ops, Duration warmup, long warmupOps) {
  public RunBounds {
    if (ops < 0 || warmupOps < 0) {
      throw new IllegalArgumentException("ops and warmupOps must not be negative");
    }
    if (ops == 0 && (duration == null || duration.isZero() || duration.isNegative())) {
      throw new IllegalArgumentException("a run needs ops > 0 or a positive duration");
    }
  }

  public static RunBounds ops(long ops, long warmupOps) {
    return new RunBounds(Duration.ZERO, ops, Duration.ZERO, warmupOps);
  }

  public static RunBounds duration(Duration duration, Duration warmup) {
    return new RunBounds(duration, 0, warmup, 0);
  }

  public boolean byOps() {
    return ops > 0;
  }

  public boolean hasWarmup() {
    return warmupOps > 0 || (warmup != null && !warmup.isZero() && !warmup.isNegative());
  }

  /** The warm-up as bounds of its own. */
  public RunBounds warmupBounds() {
    return warmupOps > 0 ? ops(warmupOps, 0) : duration(warmup, Duration.ZERO);
  }
}
