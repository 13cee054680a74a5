package org.kvstore.testkit;

/**
 * Seeds for randomized tests: {@code -Dkvstore.seed=N} reproduces a run; otherwise a fresh seed is
 * drawn and printed, and every assertion message carries it.
 *
 * <p>Thread safety: stateless.
 */
public final class Seeds {
  private Seeds() {}

  public static long seed(String testName) {
    Long fixed = Long.getLong("kvstore.seed");
    long seed = fixed != null ? fixed : System.nanoTime() ^ Thread.currentThread().getId() * 0x9E3779B97F4A7C15L;
    System.out.println(testName + ": seed=" + seed + " (reproduce with -Dkvstore.seed=" + seed + ")");
    return seed;
  }
}
