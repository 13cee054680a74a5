package org.kvstore.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import org.kvstore.NoSpaceException;
import org.kvstore.StorageIOException;
import org.kvstore.io.NoSpace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's "no space" state: set when a log append, a flush, a compaction or a checkpoint fails
 * for lack of disk space and left the previous state intact; cleared by itself once every failed
 * piece of work succeeds again. It is not a permanent failure (those are latched by the
 * {@link WritePipeline}): while it is set, writes are refused at once with one
 * {@link NoSpaceException}, reads go on, and a background thread retries each failed piece of work
 * (its {@link Retry}) with back-off, {@link #FIRST_BACKOFF} doubling up to {@link #MAX_BACKOFF}, as
 * RocksDB's error handler resumes after a background {@code NoSpace} error. Between retries it
 * watches the free space of the failed directories ({@link SpaceProbe}, a {@code statfs}, every
 * {@link #FIRST_BACKOFF}): when {@link #FREED_BYTES} or more were freed, it retries at once and
 * starts the back-off over, so writes resume within a fraction of a second of an operator freeing
 * space, however long the disk was full. A piece of work whose retry is refused because it failed
 * for good meanwhile is dropped and handed to the store, which turns read-only
 * ({@link #onFailedForGood}).
 *
 * <p>Thread safety: thread-safe. The monitor guards the failure map and the counters; no retry
 * runs under it. The retry thread is started on the first failure and ends when the state clears.
 */
public final class DiskSpace implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DiskSpace.class);
  static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
  /** Space freed in a failed directory since the last retry that makes the next retry start now. */
  static final long FREED_BYTES = 1 << 20;

  /** Bytes still writable on the file system of a directory (the store's file layer answers). */
  @FunctionalInterface
  public interface SpaceProbe {
    long usableSpace(Path dir) throws IOException;
  }

  /** Redoes one piece of failed work; throws when it still fails. */
  @FunctionalInterface
  public interface Retry {
    void run() throws IOException;
  }

  /** Told when the retry of a piece of work shows that it failed for good ({@link #onFailedForGood}). */
  @FunctionalInterface
  public interface FailedForGood {
    void failed(String source, IOException cause);
  }

  /** One failed piece of work: where it ran out of space, since when, and how to retry it. */
  private record Failure(String source, Path directory, IOException cause, long sinceMillis, Retry retry) {}

  /**
   * What {@code INFO persistence} shows: whether writes are refused for lack of space, the last
   * such error and when it began (epoch millis, 0: never), the resumes so far, and how many times
   * each piece of work ran out of space since the store opened.
   */
  public record Status(boolean full, String lastError, long fullSinceMillis, long resumes, long lastResumeMillis,
      Map<String, Long> outOfSpaceBySource) {}

  @GuardedBy("this")
  private final Map<String, Failure> failures = new LinkedHashMap<>();
  /** The first of {@link #failures}, or null: the writers' check reads only this. */
  private volatile Failure first;
  @GuardedBy("this")
  private String lastError = "";
  /** Out-of-space failures per source since the store opened (sources are few: the log, checkpoints, tables). */
  @GuardedBy("this")
  private final Map<String, Long> outOfSpaceBySource = new TreeMap<>();
  @GuardedBy("this")
  private long resumes;
  @GuardedBy("this")
  private long lastResumeMillis;
  @GuardedBy("this")
  private Thread retrier;
  private volatile boolean closed;
  /** Null: no watching, retries only by back-off. */
  private final SpaceProbe probe;
  private volatile FailedForGood failedForGood = (source, cause) -> {};

  /** A state whose retries go by back-off alone. */
  public DiskSpace() {
    this(null);
  }

  /** A state that also retries as soon as {@code probe} shows space freed in a failed directory. */
  public DiskSpace(SpaceProbe probe) {
    this.probe = probe;
  }

  /**
   * Records that {@code source} (one name per piece of work, e.g. {@code wal}, {@code checkpoint},
   * {@code table db.t}) failed with {@code cause}, an ENOSPC failure in {@code directory}. Writes are
   * refused from now on until {@code retry} succeeds. A source already failing keeps its first
   * failure's time.
   */
  public void enter(String source, Path directory, IOException cause, Retry retry) {
    synchronized (this) {
      if (closed) {
        return;
      }
      Failure f = failures.get(source);
      long since = f != null ? f.sinceMillis() : first != null ? first.sinceMillis() : System.currentTimeMillis();
      failures.put(source, new Failure(source, directory, cause, since, retry));
      outOfSpaceBySource.merge(source, 1L, Long::sum);
      lastError = source + ": " + StorageIOException.describeCause(cause);
      if (first == null) {
        first = failures.values().iterator().next();
        LOG.error("disk full in {} ({}): writes are refused until space is freed; reads go on",
            directory, lastError);
      }
      if (retrier == null) {
        retrier = new Thread(this::retryLoop, "kvstore-space-retry");
        retrier.setDaemon(true);
        retrier.start();
      }
    }
  }

  /**
   * Sets who is told when a retry is refused because of a failure latched for good meanwhile
   * ({@link NoSpace#isFailedEarlier}: a table's background work whose manifest fsync failed, say).
   * No retry of that work can succeed before a reopen, so instead of refusing writes as "disk full"
   * forever, this state drops the work after telling {@code listener}, which makes the store
   * read-only (the store's {@link WritePipeline#fail}).
   */
  public void onFailedForGood(FailedForGood listener) {
    this.failedForGood = listener;
  }

  /** Throws {@link NoSpaceException} while some work failed for lack of space. */
  public void checkWritable() {
    Failure f = first;
    if (f != null) {
      throw error(f);
    }
  }

  /** Whether writes are refused for lack of space now. */
  public boolean full() {
    return first != null;
  }

  /** The refusal a writer gets for {@code source}'s failure (when it was that writer's own). */
  public NoSpaceException errorFor(String source, Path directory, IOException cause) {
    return new NoSpaceException(directory, source + ": " + StorageIOException.describeCause(cause), cause);
  }

  private static NoSpaceException error(Failure f) {
    return new NoSpaceException(f.directory(), f.source() + ": " + StorageIOException.describeCause(f.cause()), f.cause());
  }

  public synchronized Status status() {
    Failure f = first;
    return new Status(f != null, lastError, f != null ? f.sinceMillis() : 0, resumes, lastResumeMillis,
        Collections.unmodifiableMap(new TreeMap<>(outOfSpaceBySource)));
  }

  private void retryLoop() {
    long backoff = FIRST_BACKOFF.toNanos();
    Map<Path, Long> baseline = usableSpace();
    for (;;) {
      boolean freed = awaitBackoffOrFreedSpace(backoff, baseline);
      Map<String, Failure> now;
      synchronized (this) {
        if (closed || failures.isEmpty()) {
          retrier = null;
          return;
        }
        now = new LinkedHashMap<>(failures);
      }
      // The free space before the retries: space freed while they run (too late for them) counts
      // as freed for the next wait, which then ends at once instead of after the back-off.
      Map<Path, Long> beforeRetries = usableSpace();
      for (Failure f : now.values()) {
        if (closed) {
          break;
        }
        try {
          f.retry().run();
          clear(f);
        } catch (IOException | RuntimeException e) {
          if (NoSpace.isFailedEarlier(e)) {
            abandon(f, e);
          } else {
            LOG.debug("retry of {} after a full disk failed: {}", f.source(), e.toString());
          }
        }
      }
      synchronized (this) {
        if (closed || failures.isEmpty()) {
          retrier = null; // the next failure starts over from the first back-off
          return;
        }
      }
      baseline = beforeRetries;
      backoff = freed ? FIRST_BACKOFF.toNanos() : Math.min(backoff * 2, MAX_BACKOFF.toNanos());
    }
  }

  /**
   * Waits {@code backoffNanos}, or less when a failed directory gained {@link #FREED_BYTES} over
   * {@code baseline}; returns whether it was the latter.
   */
  private boolean awaitBackoffOrFreedSpace(long backoffNanos, Map<Path, Long> baseline) {
    long deadline = System.nanoTime() + backoffNanos;
    for (;;) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || closed) {
        return false;
      }
      LockSupport.parkNanos(Math.min(left, FIRST_BACKOFF.toNanos()));
      if (probe == null || closed) {
        continue;
      }
      for (Map.Entry<Path, Long> e : usableSpace().entrySet()) {
        Long before = baseline.get(e.getKey());
        if (before == null || e.getValue() - before >= FREED_BYTES) {
          return true;
        }
      }
    }
  }

  /** The usable space of each failed directory now (those the probe cannot answer for left out). */
  private Map<Path, Long> usableSpace() {
    Map<Path, Long> out = new LinkedHashMap<>();
    if (probe == null) {
      return out;
    }
    Set<Path> dirs = new LinkedHashSet<>();
    synchronized (this) {
      for (Failure f : failures.values()) {
        dirs.add(f.directory());
      }
    }
    for (Path d : dirs) {
      try {
        out.put(d, probe.usableSpace(d));
      } catch (IOException | RuntimeException e) {
        LOG.debug("cannot read the free space of {}: {}", d, e.toString());
      }
    }
    return out;
  }

  /**
   * Drops {@code f}, whose retry was refused for good with {@code e}, after handing {@code e} to the
   * {@link FailedForGood} listener: the store is read-only before this state may let writes pass.
   */
  private void abandon(Failure f, Throwable e) {
    LOG.error("retry of {} after a full disk failed for good; it is not retried again: {}",
        f.source(), e.toString());
    failedForGood.failed(
        f.source(), e instanceof IOException io ? io : new IOException(e.getMessage(), e));
    synchronized (this) {
      if (failures.get(f.source()) != f) {
        return;
      }
      failures.remove(f.source());
      first = failures.isEmpty() ? null : failures.values().iterator().next();
    }
  }

  /** Clears {@code f} unless its source failed again meanwhile; logs the resume when it was the last. */
  private synchronized void clear(Failure f) {
    if (failures.get(f.source()) != f) {
      return; // failed again while being retried: keep it
    }
    failures.remove(f.source());
    if (failures.isEmpty()) {
      long now = System.currentTimeMillis();
      LOG.info("disk space available again in {}: writes resume after {} ms without them",
          f.directory(), now - first.sinceMillis());
      first = null;
      resumes++;
      lastResumeMillis = now;
    } else {
      first = failures.values().iterator().next();
    }
  }

  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      closed = true;
      t = retrier;
    }
    if (t != null) {
      LockSupport.unpark(t);
      try {
        t.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
