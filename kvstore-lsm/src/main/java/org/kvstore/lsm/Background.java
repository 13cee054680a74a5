package org.kvstore.lsm;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.kvstore.lsm.compaction.Compaction;
import org.kvstore.lsm.compaction.CompactionJob;
import org.kvstore.lsm.compaction.CompactionPicker;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionEdit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background work of one table: one flush thread writing immutable memtables oldest first, and
 * one compaction thread running one compaction at a time (so compactions never conflict, and a
 * flush only ever adds level-0 files). The first failure of either is latched in the table.
 *
 * <p>Thread safety: thread-safe; {@link #scheduleFlush} and {@link #maybeScheduleCompaction} may be
 * called from any thread.
 */
final class Background {
  private static final Logger LOG = LoggerFactory.getLogger(Background.class);

  private final LsmTable table;
  private final String name;
  private final ExecutorService flushThread;
  private final ExecutorService compactionThread;
  private final CompactionPicker picker;
  private final AtomicBoolean compactionScheduled = new AtomicBoolean();
  private volatile boolean shuttingDown;

  Background(LsmTable table, String name) {
    this.table = table;
    this.name = name;
    this.flushThread = Executors.newSingleThreadExecutor(r -> thread(r, "lsm-flush-" + name));
    this.compactionThread = Executors.newSingleThreadExecutor(r -> thread(r, "lsm-compact-" + name));
    this.picker = new CompactionPicker(table.options());
  }

  private static Thread thread(Runnable r, String n) {
    Thread t = new Thread(r, n);
    t.setDaemon(true);
    return t;
  }

  /** Queues the flush of one immutable memtable (the oldest at the time it runs). */
  void scheduleFlush() {
    flushThread.execute(this::flushOldest);
  }

  private void flushOldest() {
    FrozenMemTable f = table.oldestImmutable();
    if (f == null) {
      return;
    }
    if (shuttingDown || table.backgroundError() != null) {
      Throwable e = table.backgroundError();
      f.flushed().completeExceptionally(e != null ? e : new IOException("table closed before the flush"));
      return;
    }
    try {
      long fileNum = table.versions().newFileNum();
      FileMetadata meta =
          FlushJob.run(f.mem(), fileNum, table.fileSystem(), table.directory(), table.options(), table.blockCache());
      VersionEdit edit = new VersionEdit().persistedLsn(f.appliedLsn()).lastSeqNum(f.maxSeqNum());
      if (meta != null) {
        edit.addFile(0, meta);
      }
      table.versions().logAndApply(edit);
      if (meta != null) {
        table.statistics().bytesFlushed.add(meta.fileSize());
        table.statistics().flushes.increment();
      }
      table.flushInstalled(f);
      f.flushed().complete(null);
      maybeScheduleCompaction();
    } catch (Throwable e) {
      table.latchBackgroundError(e);
      f.flushed().completeExceptionally(e);
    }
  }

  /** Schedules a compaction run if one may be due and none is queued. */
  void maybeScheduleCompaction() {
    if (shuttingDown || table.backgroundError() != null) {
      return;
    }
    if (compactionScheduled.compareAndSet(false, true)) {
      try {
        compactionThread.execute(this::compactWhileDue);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        compactionScheduled.set(false);
      }
    }
  }

  private void compactWhileDue() {
    try {
      while (!shuttingDown && table.backgroundError() == null) {
        Version v = table.versions().acquireCurrent();
        try {
          Compaction c = picker.pick(v);
          if (c == null) {
            break;
          }
          runCompaction(c);
        } finally {
          v.unref();
        }
      }
    } catch (CompactionJob.AbortedException e) {
      LOG.debug("table {}: compaction aborted by close", name);
    } catch (Throwable e) {
      if (!shuttingDown) {
        table.latchBackgroundError(e);
      }
    } finally {
      compactionScheduled.set(false);
    }
  }

  private void runCompaction(Compaction c) throws IOException {
    long start = System.nanoTime();
    CompactionJob job =
        new CompactionJob(
            c, table.fileSystem(), table.directory(), table.options(), table.openFiles(),
            table.blockCache(), () -> table.versions().newFileNum(), () -> shuttingDown);
    VersionEdit edit = job.run();
    try {
      table.versions().logAndApply(edit);
    } catch (IOException | RuntimeException e) {
      job.discardOutputs();
      throw e;
    }
    if (!c.isTrivialMove()) {
      table.statistics().bytesCompactionRead.add(c.inputBytes());
      table.statistics().bytesCompactionWritten.add(job.bytesWritten());
    }
    table.statistics().compactions.increment();
    table.versionChanged();
    LOG.debug("table {}: compacted L{} ({} + {} files, {} bytes) into {} files of L{} in {} ms{}",
        name, c.level(), c.inputs().size(), c.overlaps().size(), c.inputBytes(), job.outputs().size(),
        c.outputLevel(), (System.nanoTime() - start) / 1_000_000, c.isTrivialMove() ? " (move)" : "");
  }

  /** Stops both threads: a running flush finishes, a running compaction aborts. */
  void shutdown() {
    shuttingDown = true;
    flushThread.shutdown();
    compactionThread.shutdown();
    try {
      flushThread.awaitTermination(1, TimeUnit.MINUTES);
      compactionThread.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
