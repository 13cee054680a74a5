package org.kvstore.internal;

import java.io.IOException;
import java.time.Duration;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;
import org.kvstore.Histogram;
import org.kvstore.KVStoreException;
import org.kvstore.NoSpaceException;
import org.kvstore.NoSuchTableException;
import org.kvstore.StorageIOException;
import org.kvstore.StoreClosedException;
import org.kvstore.io.NoSpace;
import org.kvstore.stats.HistogramRecorder;
import org.kvstore.wal.WriteAheadLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints the store: flushes every table's state to its files, then deletes the log segments
 * no table needs any more. Runs on demand ({@link #checkpoint()}) and in the background every
 * {@code interval} or every {@code logBytes} of log, whichever comes first.
 *
 * <p>Thread safety: thread-safe; checkpoints are serialized by this object's monitor, which also
 * excludes backups.
 */
public final class StoreCheckpointer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StoreCheckpointer.class);
  private static final long TICK_MILLIS = 100;

  private final StoreCatalog catalog;
  private final WriteAheadLog wal;
  private final WritePipeline pipeline;
  private final Duration interval;
  private final long logBytes;
  private final Thread thread;
  private volatile boolean stopping;
  private volatile long lastBytes;
  private volatile long lastNanos = System.nanoTime();
  private volatile long completed;
  private final HistogramRecorder durationNanos = HistogramRecorder.forNanos();
  private final LongAdder failures = new LongAdder();

  public StoreCheckpointer(StoreCatalog catalog, WriteAheadLog wal, WritePipeline pipeline, Duration interval, long logBytes) {
    this.catalog = catalog;
    this.wal = wal;
    this.pipeline = pipeline;
    this.interval = interval;
    this.logBytes = logBytes;
    this.thread = new Thread(this::run, "kvstore-checkpointer");
    thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  /** Checkpoints completed since the store opened. */
  public long completed() {
    return completed;
  }

  /** The duration of each completed checkpoint since the store opened, in nanoseconds. */
  public Histogram durationNanos() {
    return durationNanos.snapshot();
  }

  /** Checkpoints that failed since the store opened. */
  public long failures() {
    return failures.sum();
  }

  private void run() {
    while (!stopping) {
      // park, not sleep+interrupt: interrupting a thread inside FileChannel I/O closes the channel
      java.util.concurrent.locks.LockSupport.parkNanos(TICK_MILLIS * 1_000_000L);
      boolean byTime = !interval.isZero() && System.nanoTime() - lastNanos >= interval.toNanos();
      boolean bySize = wal.bytesWritten() - lastBytes >= logBytes;
      if ((byTime || bySize) && !stopping && pipeline.failure() == null && !pipeline.space().full()) {
        try {
          checkpoint();
        } catch (NoSpaceException e) {
          lastNanos = System.nanoTime(); // retried by the store's DiskSpace until it succeeds
        } catch (KVStoreException e) {
          LOG.warn("background checkpoint failed: {}", e.getMessage());
          lastNanos = System.nanoTime(); // retry on the next period, not on every tick
        } catch (RuntimeException e) {
          // A bug, not an I/O failure: say so loudly, but keep checkpointing (the log would grow forever).
          LOG.error("background checkpoint failed unexpectedly", e);
          lastNanos = System.nanoTime();
        }
      }
    }
  }

  /**
   * Flushes every table, then deletes log segments below every table's persisted state. When it
   * fails for lack of space, the store refuses writes until a retry of the checkpoint succeeds
   * ({@link DiskSpace}), and this call throws {@link NoSpaceException}. Records its duration, or
   * counts it as failed when it throws.
   */
  public synchronized void checkpoint() {
    long start = System.nanoTime();
    try {
      checkpointOrWaitForSpaceLocked();
    } catch (RuntimeException e) {
      failures.increment();
      throw e;
    }
    durationNanos.record(System.nanoTime() - start);
  }

  /** REQUIRES: this object's monitor. */
  private void checkpointOrWaitForSpaceLocked() {
    assert Thread.holdsLock(this);
    pipeline.checkWritable();
    try {
      checkpointLocked();
    } catch (KVStoreException e) {
      IOException cause = ioCause(e);
      if (cause == null || !NoSpace.causedBy(e)) {
        throw e;
      }
      Path where = e instanceof StorageIOException s && s.path() != null ? s.path() : wal.directory().getParent();
      pipeline.space().enter("checkpoint", where, cause, this::retryAfterNoSpace);
      throw pipeline.space().errorFor("checkpoint", where, cause);
    }
  }

  /** A checkpoint that failed for lack of space, again: throws while it still fails. */
  private synchronized void retryAfterNoSpace() throws IOException {
    pipeline.checkNotFailed();
    try {
      checkpointLocked();
    } catch (KVStoreException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private static IOException ioCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException io) {
        return io;
      }
    }
    return null;
  }

  private void checkpointLocked() {
    long bytesAtStart = wal.bytesWritten();
    long needed = Long.MAX_VALUE;
    for (StoreTable t : catalog.tables()) {
      if (!t.durable()) {
        continue;
      }
      long watermark = pipeline.appliedLsn();
      try {
        t.flush();
      } catch (NoSuchTableException | StoreClosedException e) {
        continue; // dropped or closing meanwhile: its records no longer matter
      }
      needed = Math.min(needed, t.logNeededAbove(watermark));
    }
    if (needed == Long.MAX_VALUE) {
      needed = pipeline.appliedLsn();
    }
    try {
      int deleted = wal.deleteObsoleteSegments(needed);
      if (deleted > 0) {
        LOG.debug("checkpoint deleted {} log segments (all tables persisted up to LSN {})", deleted, needed);
      }
    } catch (IOException e) {
      throw new StorageIOException("deleting obsolete log segments in " + wal.directory(), e);
    }
    lastBytes = bytesAtStart;
    lastNanos = System.nanoTime();
    completed++;
  }

  @Override
  public void close() {
    stopping = true;
    java.util.concurrent.locks.LockSupport.unpark(thread);
    try {
      thread.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
