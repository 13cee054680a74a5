package org.kvstore.lsm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.kvstore.io.FileSystem;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.sstable.SstableFormat;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.ManifestFormat;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of one table's directory as a whole: deletes SSTables no live version uses any more,
 * sweeps the files no version references at open, and copies the durable state for a backup.
 * Closing it closes the open files and empties the table's block cache view.
 *
 * <p>Thread safety: thread-safe; {@link #deleteObsolete} runs on whichever thread released a
 * version's last pin, concurrently with the others, and touches only files no version contains.
 */
final class TableFiles implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableFiles.class);

  private final String tableName;
  private final FileSystem fs;
  private final Path dir;
  private final OpenFiles files;
  private final BlockCache cache;

  TableFiles(String tableName, FileSystem fs, Path dir, OpenFiles files, BlockCache cache) {
    this.tableName = tableName;
    this.fs = fs;
    this.dir = dir;
    this.files = files;
    this.cache = cache;
  }

  /** Deletes files of this table no version references: leftovers of a crash or an earlier close. */
  void sweepUnreferenced(VersionSet versions) throws IOException {
    Version v = versions.current();
    Set<Long> live = new HashSet<>();
    for (int level = 0; level < v.levelCount(); level++) {
      for (FileMetadata f : v.files(level)) {
        live.add(f.fileNum());
      }
    }
    String manifest = ManifestFormat.manifestName(versions.manifestFileNum());
    for (String name : fs.list(dir)) {
      long num = SstableFormat.parseFileName(name);
      boolean stale =
          (num >= 0 && !live.contains(num))
              || (name.startsWith(ManifestFormat.MANIFEST_PREFIX) && !name.equals(manifest))
              || name.equals(ManifestFormat.CURRENT_TEMP);
      if (stale) {
        LOG.info("table {}: deleting unreferenced file {}", tableName, name);
        fs.delete(dir.resolve(name));
      }
    }
  }

  /** Deletes SSTables no live version contains (called by whoever released the last pin). */
  void deleteObsolete(List<FileMetadata> dead) {
    long[] nums = new long[dead.size()];
    for (int i = 0; i < nums.length; i++) {
      nums[i] = dead.get(i).fileNum();
    }
    cache.evictFiles(nums);
    for (FileMetadata f : dead) {
      files.forget(f);
      f.dropResident();
      files.evict(f.fileNum());
      try {
        fs.delete(dir.resolve(SstableFormat.fileName(f.fileNum())));
      } catch (IOException e) {
        // Not a data risk: the file is in no version; the sweep at the next open retries.
        LOG.warn("table {}: could not delete obsolete {}: {}", tableName, f, e.toString());
      }
    }
  }

  /**
   * Copies the durable state into {@code targetDirectory}: pins the current version together with
   * the persisted LSN logged with it, hard-links its SSTables (immutable, and kept on disk by the
   * pin while flushes and compactions go on), then writes a fresh manifest and CURRENT describing
   * exactly that version. The copy opens as a table at that persisted LSN; the core replays its log
   * copy above it. Memtables are not copied: what they hold is above the persisted LSN.
   */
  void backup(VersionSet versions, Path targetDirectory) throws IOException {
    VersionSet.Snapshot snap = versions.snapshot();
    try {
      fs.createDirectories(targetDirectory);
      Version v = snap.version();
      for (int level = 0; level < v.levelCount(); level++) {
        for (FileMetadata f : v.files(level)) {
          String name = SstableFormat.fileName(f.fileNum());
          fs.createLink(targetDirectory.resolve(name), dir.resolve(name));
        }
      }
      VersionSet.writeBackupManifest(fs, targetDirectory, snap);
      LOG.info("table {}: backed up {} at persistedLsn={} to {}", tableName, v, snap.persistedLsn(),
          targetDirectory);
    } finally {
      snap.version().unref();
    }
  }

  /** Closes the open files and empties the table's block cache view. */
  @Override
  public void close() {
    files.close();
    cache.close();
  }
}
