package org.kvstore.testkit;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;

/**
 * Runs a Lincheck test class with the project's settings: a model-checking run (which explores
 * thread interleavings, switching threads at every shared-memory access, and reports a lost wake-up
 * as a deadlock) and a short stress run (real threads, real memory model). Sizes grow under the
 * long-run profiles ({@link TestScale}); the default build spends seconds per class (a model-checked
 * invocation costs milliseconds: the checker runs the threads one at a time, handing over at every
 * shared access).
 *
 * <p>A test class is public, has a public no-argument constructor that builds the object under
 * test, and marks its operations with {@code @Operation}; Lincheck compares the results of every
 * interleaving it runs with some sequential order of the same operations.
 *
 * <p>Thread safety: stateless.
 */
public final class Lincheck {
  private Lincheck() {}

  /** Model checking: {@code threads} threads of {@code actors} operations each. */
  public static void modelCheck(Class<?> testClass, int threads, int actors) {
    TestScale scale = TestScale.current();
    ModelCheckingOptions options = new ModelCheckingOptions()
        .iterations(scale.scaled(5))
        .invocationsPerIteration(scale.isLongRun() ? 2_000 : 100)
        .threads(threads)
        .actorsPerThread(actors)
        .actorsBefore(0)
        .actorsAfter(1);
    LinChecker.check(testClass, options);
  }

  /** Stress: the same scenarios on real threads, each run many times. */
  public static void stress(Class<?> testClass, int threads, int actors) {
    TestScale scale = TestScale.current();
    StressOptions options = new StressOptions()
        .iterations(scale.scaled(5))
        .invocationsPerIteration(scale.isLongRun() ? 20_000 : 2_000)
        .threads(threads)
        .actorsPerThread(actors)
        .actorsBefore(0)
        .actorsAfter(1);
    LinChecker.check(testClass, options);
  }
}
