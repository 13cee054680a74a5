package org.kvstore.testkit;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Waits until a thread is blocked on a given lock, monitor or park blocker: the synchronization
 * point a test needs before it checks that something still waits, instead of a sleep that guesses
 * how long the thread takes to get there.
 *
 * <p>Thread safety: stateless.
 */
public final class Blocked {
  private static final long TIMEOUT_SECONDS = 10;

  private Blocked() {}

  /**
   * Waits until {@code thread} waits (in {@code Object.wait}, on a lock, or parked) on something
   * {@code on} accepts, and returns it.
   *
   * @throws AssertionError naming {@code what} if the thread ends or 10 s pass first
   */
  public static LockInfo awaitBlockedOn(Thread thread, Predicate<LockInfo> on, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    LockInfo last = null;
    while (System.nanoTime() < deadline) {
      if (!thread.isAlive()) {
        throw new AssertionError(what + ": " + thread.getName() + " ended instead");
      }
      ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(thread.getId());
      if (info != null) {
        last = info.getLockInfo();
        Thread.State state = info.getThreadState();
        boolean waiting = state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
            || state == Thread.State.BLOCKED;
        if (waiting && last != null && on.test(last)) {
          return last;
        }
      }
      Thread.sleep(1);
    }
    throw new AssertionError(what + ": " + thread.getName() + " did not block within " + TIMEOUT_SECONDS
        + " s (last waited on " + last + ")");
  }

  /** Accepts a lock, monitor or blocker of class {@code type}. */
  public static Predicate<LockInfo> ofClass(Class<?> type) {
    return l -> l.getClassName().equals(type.getName());
  }

  /** Accepts a lock, monitor or blocker whose class is named {@code className} (for private classes). */
  public static Predicate<LockInfo> ofClassNamed(String className) {
    return l -> l.getClassName().equals(className);
  }
}
