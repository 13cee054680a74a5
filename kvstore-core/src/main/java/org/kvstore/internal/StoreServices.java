package org.kvstore.internal;

import java.io.IOException;
import java.nio.file.Path;
import org.kvstore.Durability;
import org.kvstore.DurabilityStats;
import org.kvstore.KVStoreException;
import org.kvstore.NoSpaceException;
import org.kvstore.StorageIOException;
import org.kvstore.StoreOptions;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;
import org.kvstore.wal.WriteAheadLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The moving parts of an open store, started and stopped in order: catalog and tables, recovery,
 * the write-ahead log, the periodic syncer and the checkpointer.
 *
 * <pre>
 *   open:  catalog.open (engines open their tables) -&gt; StoreRecovery (log replay, tail cut)
 *          -&gt; WriteAheadLog.open (new segment) -&gt; pipeline.attach -&gt; LogSyncer, StoreCheckpointer,
 *          ActiveExpiry
 *   close: ActiveExpiry, StoreCheckpointer, LogSyncer stop -&gt; checkpoint (unless failed) -&gt; tables close -&gt; log close
 * </pre>
 *
 * <p>Thread safety: thread-safe after {@link #open}; {@link #close} runs once.
 */
public final class StoreServices {
  private static final Logger LOG = LoggerFactory.getLogger(StoreServices.class);
  public static final String WAL_DIR = "wal";
  /**
   * The periodic syncer syncs after each eighth of a log segment written, so that a segment roll's
   * fsync (under the log's lock) writes back at most about an eighth of a segment.
   */
  static final int LOG_SYNCS_PER_SEGMENT = 8;

  private final FileSystem fs;
  private final Path dir;
  private final StoreOptions options;
  private final DiskSpace space;
  private final WritePipeline pipeline;
  private final StoreCatalog catalog;
  private WriteAheadLog wal;
  private LogSyncer syncer;
  private StoreCheckpointer checkpointer;
  private ActiveExpiry expiry;

  private StoreServices(FileSystem fs, Path dir, StoreOptions options, EngineRegistry engines) {
    this.fs = fs;
    this.dir = dir;
    this.options = options;
    this.space = new DiskSpace(fs::usableSpace);
    this.pipeline = new WritePipeline(0, space);
    // Work the store retries after a full disk that then fails for good makes the store read-only.
    space.onFailedForGood(
        (source, cause) -> pipeline.fail(source + " failed for good while retried after a full disk", cause));
    pipeline.prober(probeDir -> () -> probeSpace(fs, probeDir));
    this.catalog = new StoreCatalog(fs, dir, engines, options, pipeline);
  }

  /** Opens everything; on failure closes what was opened (without persisting anything). */
  public static StoreServices open(FileSystem fs, Path dir, StoreOptions options, EngineRegistry engines) throws IOException {
    StoreServices s = new StoreServices(fs, dir, options, engines);
    try {
      s.catalog.open();
      Path walDir = dir.resolve(WAL_DIR);
      fs.createDirectories(walDir);
      StoreRecovery.Outcome outcome =
          StoreRecovery.recover(fs, walDir, options.recoveryMode(), s.catalog, s.pipeline);
      s.wal = WriteAheadLog.open(fs, walDir, options.logSegmentBytes(), outcome.log().segments(), outcome.endLsn());
      s.pipeline.attach(s.wal);
      s.pipeline.logDirectory(walDir);
      s.syncer = new LogSyncer(s.wal, s.pipeline, options.syncInterval(),
          Math.max(1, options.logSegmentBytes() / LOG_SYNCS_PER_SEGMENT), s::anyPeriodicTable);
      s.syncer.start();
      s.checkpointer =
          new StoreCheckpointer(s.catalog, s.wal, s.pipeline, options.checkpointInterval(), options.checkpointLogBytes());
      s.checkpointer.start();
      s.expiry = new ActiveExpiry(s.catalog::tables, options.clock(), options.expiryInterval(),
          options.expiryEntriesPerPass());
      s.expiry.start();
      return s;
    } catch (IOException | RuntimeException e) {
      s.abandon(e);
      throw e;
    }
  }

  /** Bytes {@link #probeSpace} writes. */
  static final int PROBE_BYTES = 64 * 1024;
  static final String PROBE_NAME = "SPACE-PROBE.tmp";

  /**
   * Whether {@code dir}'s file system has space again: writes, syncs and deletes a small file there
   * (a failed fsync of this file harms nothing: it is deleted either way).
   */
  private static void probeSpace(FileSystem fs, Path dir) throws IOException {
    Path probe = dir.resolve(PROBE_NAME);
    fs.delete(probe);
    try (StorageFile f = fs.open(probe, FileSystem.OpenMode.CREATE_NEW)) {
      f.writeFully(java.nio.ByteBuffer.allocate(PROBE_BYTES), 0);
      f.sync();
    } finally {
      fs.delete(probe);
    }
  }

  /** The store's "no space" state. */
  public DiskSpace space() {
    return space;
  }

  private boolean anyPeriodicTable() {
    for (StoreTable t : catalog.tables()) {
      if (t.durabilityMode() == Durability.PERIODIC) {
        return true;
      }
    }
    return false;
  }

  /** Closes what an incomplete open left running, persisting nothing. */
  private void abandon(Exception cause) {
    space.close();
    if (expiry != null) {
      expiry.close();
    }
    if (checkpointer != null) {
      checkpointer.close();
    }
    if (syncer != null) {
      syncer.close();
    }
    try {
      catalog.closeAll("store failed to open");
    } catch (IOException e) {
      cause.addSuppressed(e);
    }
    if (wal != null) {
      try {
        wal.close();
      } catch (IOException e) {
        cause.addSuppressed(e);
      }
    }
  }

  public StoreCatalog catalog() {
    return catalog;
  }

  public WritePipeline pipeline() {
    return pipeline;
  }

  public WriteAheadLog wal() {
    return wal;
  }

  public void checkpoint() {
    checkpointer.checkpoint();
  }

  public ActiveExpiry expiry() {
    return expiry;
  }

  public long checkpointsCompleted() {
    return checkpointer.completed();
  }

  /** The log's and the checkpointer's counters (see {@link DurabilityStats}). */
  public DurabilityStats durabilityStats() {
    return new DurabilityStats(wal.syncNanos(), wal.bytesWritten(), wal.batchRecords(),
        checkpointer.durationNanos(), checkpointer.failures());
  }

  /** An online, consistent copy of the store in {@code target} (see {@link BackupWriter}). */
  public void backup(Path target) {
    synchronized (checkpointer) {
      checkpointer.checkpoint();
      try {
        BackupWriter.write(fs, target.toAbsolutePath().normalize(), catalog.state(), catalog, wal);
      } catch (IOException e) {
        throw new StorageIOException("backup of " + dir + " to " + target, e);
      }
    }
  }

  /** Stops the background threads, checkpoints unless the store failed, closes tables and the log. */
  public void close() {
    KVStoreException error = null;
    space.close();
    expiry.close();
    checkpointer.close();
    syncer.close();
    if (pipeline.failure() == null) {
      try {
        checkpointer.checkpoint();
      } catch (NoSpaceException e) {
        // Everything is in the log, which the next open replays: closing loses nothing.
        LOG.warn("closing without a final checkpoint: {}", e.getMessage());
      } catch (KVStoreException e) {
        error = e;
      }
    }
    try {
      catalog.closeAll("store closed");
    } catch (IOException e) {
      error = collect(error, new StorageIOException("closing the tables of " + dir, e));
    }
    try {
      wal.close();
    } catch (IOException e) {
      if (pipeline.failure() == null) {
        error = collect(error, new StorageIOException("closing the write-ahead log of " + dir, e));
      } else {
        LOG.debug("closing the failed log: {}", e.toString());
      }
    }
    if (error != null) {
      throw error;
    }
  }

  private static KVStoreException collect(KVStoreException first, KVStoreException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }
}
