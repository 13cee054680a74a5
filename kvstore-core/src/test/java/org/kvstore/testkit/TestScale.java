package org.kvstore.testkit;

/**
 * How big randomized and crash tests run: {@code default} in the normal build, larger under the Maven
 * profiles {@code -Pcrash}, {@code -Psoak} and {@code -Pbench} (system property
 * {@code kvstore.test.scale}).
 *
 * <p>Thread safety: immutable.
 */
public enum TestScale {
  DEFAULT(1),
  CRASH(50),
  SOAK(20),
  BENCH(50);

  private final int factor;

  TestScale(int factor) {
    this.factor = factor;
  }

  public static TestScale current() {
    String s = System.getProperty("kvstore.test.scale", "default").trim();
    for (TestScale t : values()) {
      if (t.name().equalsIgnoreCase(s)) {
        return t;
      }
    }
    return DEFAULT;
  }

  /** {@code base} in the default run, multiplied under a long-run profile. */
  public int scaled(int base) {
    return base * factor;
  }

  public boolean isLongRun() {
    return this != DEFAULT;
  }
}
