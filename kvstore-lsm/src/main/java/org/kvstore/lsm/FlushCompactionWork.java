package org.kvstore.lsm;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import org.kvstore.io.FileSystem;
import org.kvstore.lsm.compaction.Compaction;
import org.kvstore.lsm.compaction.CompactionJob;
import org.kvstore.lsm.compaction.CompactionPicker;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.sstable.SstableFormat;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionEdit;
import org.kvstore.lsm.version.VersionSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file side of one flush and of one compaction of a table: writes the SSTables
 * ({@link FlushJob}, {@link CompactionJob}), logs the edit in the manifest and counts the bytes in
 * the table's {@link LsmStatistics}. Installing the new read view is the caller's
 * ({@link LsmTable}), deciding when to run is the {@link FlushCompactionScheduler}'s.
 *
 * <p>Thread safety: {@link #flush} is confined to the flush thread and {@link #compactOnce} to the
 * compaction thread; the two only share the {@link VersionSet} (thread-safe) and the counters.
 */
final class FlushCompactionWork {
  private static final Logger LOG = LoggerFactory.getLogger(FlushCompactionWork.class);

  private final String tableName;
  private final LsmOptions opt;
  private final FileSystem fs;
  private final Path dir;
  private final VersionSet versions;
  private final OpenFiles files;
  private final BlockCache cache;
  private final LsmStatistics statistics;
  private final CompactionPicker picker;
  private final Clock clock;

  FlushCompactionWork(
      String tableName, LsmOptions opt, FileSystem fs, Path dir, VersionSet versions, OpenFiles files,
      BlockCache cache, LsmStatistics statistics, Clock clock) {
    this.tableName = tableName;
    this.opt = opt;
    this.fs = fs;
    this.dir = dir;
    this.versions = versions;
    this.files = files;
    this.cache = cache;
    this.statistics = statistics;
    this.clock = clock;
    this.picker = new CompactionPicker(opt, clock);
  }

  /**
   * Writes {@code f} to a new level-0 SSTable (none when it is empty) and logs it with
   * {@code f}'s applied LSN as the persisted LSN.
   */
  void flush(FrozenMemTable f) throws IOException {
    long fileNum = versions.newFileNum();
    FileMetadata meta = FlushJob.run(f.mem(), fileNum, fs, dir, opt, cache, clock);
    VersionEdit edit = new VersionEdit().persistedLsn(f.appliedLsn()).lastSeqNum(f.maxSeqNum());
    if (meta != null) {
      edit.addFile(0, meta);
    }
    try {
      versions.logAndApply(edit);
    } catch (IOException | RuntimeException e) {
      if (meta != null && !versions.failed()) {
        // Not in the manifest: of no use, and on a full disk it takes the space the retry needs.
        cache.evictFile(fileNum);
        try {
          fs.delete(dir.resolve(SstableFormat.fileName(fileNum)));
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed); // swept at the next open
        }
      }
      throw e;
    }
    if (meta != null) {
      statistics.bytesFlushed.add(meta.fileSize());
      statistics.flushes.increment();
    }
  }

  /**
   * Picks the most urgent compaction of the current version and runs it to its manifest edit.
   *
   * @return {@code false} when none was due
   */
  boolean compactOnce(BooleanSupplier aborted) throws IOException {
    Version v = versions.acquireCurrent();
    try {
      Compaction c = picker.pick(v);
      if (c == null) {
        return false;
      }
      run(c, aborted);
      return true;
    } finally {
      v.unref();
    }
  }

  private void run(Compaction c, BooleanSupplier aborted) throws IOException {
    long start = System.nanoTime();
    CompactionJob job =
        new CompactionJob(c, fs, dir, opt, files, cache, versions::newFileNum, aborted, clock);
    VersionEdit edit = job.run();
    try {
      versions.logAndApply(edit);
    } catch (IOException | RuntimeException e) {
      if (!versions.failed()) {
        job.discardOutputs(); // not in the manifest (a failed manifest may hold them: then they stay)
      }
      throw e;
    }
    if (!c.isTrivialMove()) {
      statistics.bytesCompactionRead.add(c.inputBytes());
      statistics.bytesCompactionWritten.add(job.bytesWritten());
    }
    statistics.compactions.increment();
    LOG.debug("table {}: compacted L{} ({} + {} files, {} bytes) into {} files of L{} in {} ms{}{}",
        tableName, c.level(), c.inputs().size(), c.overlaps().size(), c.inputBytes(), job.outputs().size(),
        c.outputLevel(), (System.nanoTime() - start) / 1_000_000, c.isTrivialMove() ? " (move)" : "",
        c.reclaim() ? " (reclaim)" : "");
  }
}
