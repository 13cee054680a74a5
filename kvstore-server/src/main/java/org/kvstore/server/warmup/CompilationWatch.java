package org.kvstore.server.warmup;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Tells when the JIT has settled: its total compilation time grew by less than
 * {@link #SETTLED_MILLIS} over the last {@link #WINDOW_NANOS}. While requests keep running, that
 * means their paths have reached their final (C2) code, which is what the warm-up waits for
 * (docs/decisions/0033-server-warm-up.md). On a JVM that does not report compilation time it
 * never settles, and the warm-up runs for its whole duration.
 *
 * <p>Thread safety: confined.
 */
final class CompilationWatch {
  static final long WINDOW_NANOS = 1_000_000_000L;
  static final long SETTLED_MILLIS = 20;

  private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
  private final boolean supported = jit != null && jit.isCompilationTimeMonitoringSupported();
  private final long startMillis = compiledMillis();
  private long windowStartNanos;
  private long windowStartMillis;

  CompilationWatch(long nowNanos) {
    windowStartNanos = nowNanos;
    windowStartMillis = startMillis;
  }

  /** Milliseconds the JIT has spent compiling since this watch was made (0 if unsupported). */
  long compiledMillisSinceStart() {
    return compiledMillis() - startMillis;
  }

  /**
   * Whether compilation has settled, looked at {@code nowNanos}: true once a whole window has passed
   * with less than {@link #SETTLED_MILLIS} of compilation; each full window starts the next.
   */
  boolean settled(long nowNanos) {
    if (!supported || nowNanos - windowStartNanos < WINDOW_NANOS) {
      return false;
    }
    long millis = compiledMillis();
    boolean quiet = millis - windowStartMillis < SETTLED_MILLIS;
    windowStartNanos = nowNanos;
    windowStartMillis = millis;
    return quiet;
  }

  private long compiledMillis() {
    return supported ? jit.getTotalCompilationTime() : 0;
  }
}
