package org.kvstore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvstore.io.NoSpace;

class DiskSpaceTest {
  private static final Path DIR = Path.of("/data/db");

  /** Waits until {@code n} retries ran (the back-off then is {@code FIRST_BACKOFF * 2^n}). */
  private static void awaitRetries(AtomicInteger retries, int n) throws InterruptedException {
    while (retries.get() < n) {
      Thread.sleep(5);
    }
  }

  private static long millisUntilWritable(DiskSpace space) throws InterruptedException {
    long start = System.nanoTime();
    while (space.full()) {
      Thread.sleep(5);
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  @Test
  @Timeout(30)
  void freedSpace_retriedAtOnceEvenAfterLongBackoff() throws Exception {
    AtomicLong free = new AtomicLong(0);
    AtomicBoolean fits = new AtomicBoolean(false);
    AtomicInteger retries = new AtomicInteger();
    try (DiskSpace space = new DiskSpace(dir -> free.get())) {
      space.enter("wal", DIR, new IOException("No space left on device"), () -> {
        retries.incrementAndGet();
        if (!fits.get()) {
          throw new IOException("No space left on device");
        }
      });
      assertThat(space.full()).isTrue();
      // After five failed retries the next one is 3.2 s away by back-off alone.
      awaitRetries(retries, 5);
      free.set(64L << 20);
      fits.set(true);
      long waited = millisUntilWritable(space);
      assertThat(waited).as("ms from freeing space to writes resuming (back-off alone: ~3200)").isLessThan(1500);
      assertThat(space.status().resumes()).isEqualTo(1);
    }
  }

  @Test
  @Timeout(30)
  void spaceFreedByTooLittle_waitsForTheBackoff() throws Exception {
    AtomicLong free = new AtomicLong(0);
    AtomicInteger retries = new AtomicInteger();
    try (DiskSpace space = new DiskSpace(dir -> free.get())) {
      space.enter("table db.t", DIR, new IOException("No space left on device"), () -> {
        retries.incrementAndGet();
        throw new IOException("No space left on device");
      });
      awaitRetries(retries, 5);
      int before = retries.get();
      free.set(DiskSpace.FREED_BYTES / 2);
      Thread.sleep(1000);
      assertThat(retries.get()).as("retries within a second of freeing less than FREED_BYTES").isEqualTo(before);
      assertThat(space.full()).isTrue();
      assertThat(space.status().lastError()).isEqualTo("table db.t: No space left on device");
      space.enter("wal", DIR, new IOException("No space left on device"), () -> {});
      space.enter("table db.t", DIR, new IOException("No space left on device"), () -> {
        throw new IOException("No space left on device");
      });
      assertThat(space.status().outOfSpaceBySource()).as("failures counted per source, not only the last")
          .containsExactly(java.util.Map.entry("table db.t", 2L), java.util.Map.entry("wal", 1L));
    }
  }

  @Test
  @Timeout(30)
  void unreadableFreeSpace_retriesByBackoff() throws Exception {
    AtomicBoolean fits = new AtomicBoolean(false);
    AtomicInteger retries = new AtomicInteger();
    try (DiskSpace space = new DiskSpace(dir -> {
      throw new IOException("statfs refused");
    })) {
      space.enter("checkpoint", DIR, new IOException("No space left on device"), () -> {
        retries.incrementAndGet();
        if (!fits.get()) {
          throw new IOException("No space left on device");
        }
      });
      awaitRetries(retries, 2);
      fits.set(true);
      millisUntilWritable(space);
      assertThat(space.full()).isFalse();
    }
  }

  /**
   * A retry refused because its work failed for good meanwhile (a table's background work latched
   * a failed fsync) can never succeed: it is handed to the store, which turns read-only, and
   * dropped, instead of refusing writes as "disk full" forever. It is not a resume.
   */
  @Test
  @Timeout(30)
  void retryRefusedForGood_isReportedAndDropped_notRetriedForever() throws Exception {
    AtomicInteger retries = new AtomicInteger();
    AtomicReference<String> reported = new AtomicReference<>();
    try (DiskSpace space = new DiskSpace()) {
      space.onFailedForGood((source, cause) -> reported.set(source + ": " + cause.getMessage()));
      space.enter("table db.t", DIR, new IOException("No space left on device"), () -> {
        retries.incrementAndGet();
        throw NoSpace.failedEarlier("failed in the background", new IOException("EIO"));
      });
      millisUntilWritable(space);
      assertThat(reported.get()).isEqualTo("table db.t: failed in the background");
      assertThat(retries.get()).isEqualTo(1);
      assertThat(space.status().resumes()).isZero();
    }
  }
}
