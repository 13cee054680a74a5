package org.kvstore.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.kvstore.wal.WriteAheadLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code periodic} durability mode's clock: fsyncs the log every interval while some table
 * uses that mode, and sooner once {@code bytesPerSync} bytes were written since the last fsync
 * (RocksDB's {@code wal_bytes_per_sync}): a segment roll fsyncs the old segment under the log's
 * lock, which stops every writer for as long as that fsync takes, so the syncer keeps what is left
 * to write back small. A failed fsync is latched by the log and the write pipeline (no retry).
 *
 * <p>Thread safety: thread-safe; one background thread.
 */
public final class LogSyncer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LogSyncer.class);

  private final WriteAheadLog wal;
  private final WritePipeline pipeline;
  private final Duration interval;
  private final BooleanSupplier needed;
  private final Thread thread;
  private volatile boolean stopping;

  /**
   * @param bytesPerSync written bytes after which the syncer syncs without waiting for the interval
   */
  public LogSyncer(
      WriteAheadLog wal, WritePipeline pipeline, Duration interval, long bytesPerSync, BooleanSupplier needed) {
    this.wal = wal;
    this.pipeline = pipeline;
    this.interval = interval;
    this.needed = needed;
    this.thread = new Thread(this::run, "kvstore-log-syncer");
    thread.setDaemon(true);
    wal.onUnsyncedBytes(bytesPerSync, () -> LockSupport.unpark(thread));
  }

  public void start() {
    thread.start();
  }

  private void run() {
    while (!stopping) {
      LockSupport.parkNanos(interval.toNanos());
      if (stopping || pipeline.failure() != null || !needed.getAsBoolean()) {
        continue;
      }
      try {
        wal.syncWritten();
      } catch (IOException e) {
        pipeline.fail("periodic fsync of the write-ahead log failed", e);
        LOG.error("periodic fsync of the write-ahead log failed; the store is read-only: {}", e.toString());
      }
    }
  }

  @Override
  public void close() {
    stopping = true;
    LockSupport.unpark(thread);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
