package org.kvstore.bench.load.run;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar (me.tongfei:progressbar, on stderr) for a run that lasts longer than
 * {@link #SHOW_AFTER}: a watcher thread samples the operations done and shows the bar only once that
 * time has passed, so short runs print nothing. Disabled, it only counts.
 *
 * <p>Thread safety: thread-safe.
 */
public final class Progress implements AutoCloseable {
  /** Runs shorter than this show no bar. */
  public static final Duration SHOW_AFTER = Duration.ofSeconds(3);

  private final LongAdder done = new LongAdder();
  private final Thread watcher;
  private volatile boolean closed;

  private Progress(String task, long totalOps, Duration duration, boolean enabled) {
    if (!enabled) {
      watcher = null;
      return;
    }
    watcher = new Thread(() -> watch(task, totalOps, duration), "progress-" + task);
    watcher.setDaemon(true);
    watcher.start();
  }

  /** A bar over {@code totalOps} operations (when positive) or over {@code duration} in seconds. */
  public static Progress start(String task, long totalOps, Duration duration, boolean enabled) {
    return new Progress(task, totalOps, duration, enabled);
  }

  public static Progress disabled() {
    return new Progress("", 0, Duration.ZERO, false);
  }

  public void step() {
    done.increment();
  }

  public void step(long n) {
    done.add(n);
  }

  public long done() {
    return done.sum();
  }

  private void watch(String task, long totalOps, Duration duration) {
    long start = System.nanoTime();
    ProgressBar bar = null;
    try {
      while (!closed) {
        Thread.sleep(200);
        long elapsed = System.nanoTime() - start;
        if (bar == null && elapsed >= SHOW_AFTER.toNanos() && !closed) {
          bar = totalOps > 0
              ? new ProgressBarBuilder().setTaskName(task).setInitialMax(totalOps).setUnit(" ops", 1)
                  .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).showSpeed().build()
              : new ProgressBarBuilder().setTaskName(task).setInitialMax(Math.max(1, duration.toSeconds()))
                  .setUnit(" s", 1).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).build();
        }
        if (bar != null) {
          bar.stepTo(totalOps > 0 ? done.sum() : Math.min(elapsed / 1_000_000_000L, duration.toSeconds()));
          if (totalOps <= 0) {
            bar.setExtraMessage(done.sum() + " ops");
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (bar != null) {
        bar.close();
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    if (watcher != null) {
      watcher.interrupt();
      try {
        watcher.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
