package org.kvstore.lsm.compaction;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.kvstore.Entry;
import org.kvstore.io.FileSystem;
import org.kvstore.lsm.LsmOptions;
import org.kvstore.lsm.bloom.BloomFormat;
import org.kvstore.lsm.cursor.InternalCursor;
import org.kvstore.lsm.cursor.LevelCursor;
import org.kvstore.lsm.cursor.MergingCursor;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.sstable.SstableFormat;
import org.kvstore.lsm.sstable.SstableWriter;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionEdit;

/**
 * Runs one {@link Compaction}: merges the input files in internal-key order and writes the newest
 * entry of each user key into new SSTables of the output level, cut at {@code target.file.size}.
 *
 * <h2>What may be dropped</h2>
 *
 * <ul>
 *   <li>Older versions of a key: no reader needs them. A cursor reads the files of the version it
 *       pinned, and those files stay on disk until it closes; it never reads this job's outputs.
 *   <li>A tombstone, when no level below the output level has a file whose range covers the key
 *       (the output level is the key's bottom level): nothing older is left for it to hide.
 *   <li>A put expired at the job's clock time (read once, when the job starts), under the same
 *       condition. Where something older may lie below, the expired put is written as a tombstone
 *       of the same sequence number and version instead: it must keep hiding what it hid (an
 *       expired entry is absent, never a fall-through to an older value).
 * </ul>
 *
 * <p>Outputs are synced (files and directory) before the caller logs the edit that swaps them for
 * the inputs; a crash before that leaves only unreferenced files, swept at the next open.
 *
 * <p>With {@code block.cache.fill.on.compaction} the outputs' data blocks go into the block cache
 * as they are written, up to as many bytes as the input files have there when the job starts: a
 * working set that was cached stays cached when its files are rewritten (the inputs' blocks are
 * dropped once the edit is installed), and a job over cold files puts nothing in. With
 * {@code row.cache} and {@code row.cache.fill.on.compaction} a key whose row is cached for one of
 * the input files gets its output entry's row cached for the output file, so hot rows stay hot.
 *
 * <p>Thread safety: confined to the compaction thread.
 */
public final class CompactionJob {
  private static final byte[] EMPTY = new byte[0];
  private final Compaction c;
  private final FileSystem fs;
  private final Path dir;
  private final LsmOptions opt;
  private final OpenFiles files;
  private final BlockCache cache;
  private final LongSupplier newFileNum;
  private final BooleanSupplier aborted;
  private final long nowMillis;
  private final List<FileMetadata> outputs = new ArrayList<>();
  private long bytesWritten;
  /** Bytes the outputs may still put into the block cache. */
  private long cacheFillBudget;
  /** The input files whose cached rows are carried over to the outputs, or {@code null}. */
  private List<FileMetadata> rowSources;

  public CompactionJob(
      Compaction c, FileSystem fs, Path dir, LsmOptions opt, OpenFiles files, BlockCache cache,
      LongSupplier newFileNum, BooleanSupplier aborted, Clock clock) {
    this.c = c;
    this.fs = fs;
    this.dir = dir;
    this.opt = opt;
    this.files = files;
    this.cache = cache;
    this.newFileNum = newFileNum;
    this.aborted = aborted;
    this.nowMillis = clock.millis();
  }

  /** Thrown when the table closes during the job; its outputs are deleted. */
  public static final class AbortedException extends IOException {
    private static final long serialVersionUID = 1L;

    AbortedException() {
      super("compaction aborted: table closing");
    }
  }

  /**
   * Writes the outputs and returns the edit that installs them.
   *
   * @throws AbortedException when the table closes meanwhile
   */
  public VersionEdit run() throws IOException {
    VersionEdit edit = new VersionEdit();
    for (FileMetadata f : c.inputs()) {
      edit.deleteFile(c.level(), f.fileNum());
    }
    for (FileMetadata f : c.overlaps()) {
      edit.deleteFile(c.outputLevel(), f.fileNum());
    }
    if (c.isTrivialMove()) {
      edit.addFile(c.outputLevel(), c.inputs().get(0));
      return edit;
    }
    long[] nums = new long[c.inputs().size() + c.overlaps().size()];
    int at = 0;
    for (FileMetadata f : c.inputs()) {
      nums[at++] = f.fileNum();
    }
    for (FileMetadata f : c.overlaps()) {
      nums[at++] = f.fileNum();
    }
    boolean fillRows = opt.fillRowsOnCompaction() && cache.cachesRows();
    if (opt.fillCacheOnCompaction() || fillRows) {
      long cached = cache.cachedBytes(nums); // one pass over the (possibly large, shared) cache
      cacheFillBudget = opt.fillCacheOnCompaction() ? cached : 0;
      if (fillRows && cached > 0) { // inputs with nothing cached have no rows to carry
        rowSources = new ArrayList<>(c.inputs());
        rowSources.addAll(c.overlaps());
      }
    }
    List<InternalCursor> children = new ArrayList<>();
    if (c.level() == 0) {
      for (FileMetadata f : c.inputs()) {
        children.add(f.reader(files, cache).newCursor(true));
      }
    } else {
      children.add(new LevelCursor(c.inputs(), files, cache, true));
    }
    if (!c.overlaps().isEmpty()) {
      children.add(new LevelCursor(c.overlaps(), files, cache, true));
    }
    Output out = null;
    boolean ok = false;
    try (MergingCursor m = new MergingCursor(children)) {
      byte[] last = null;
      long n = 0;
      for (m.seekToFirst(); m.isValid(); m.next()) {
        if ((++n & 1023) == 0 && aborted.getAsBoolean()) {
          throw new AbortedException();
        }
        byte[] k = m.userKey();
        if (last != null && Arrays.equals(last, k)) {
          continue;
        }
        last = k;
        ValueKind kind = m.kind();
        long expiresAt = m.expiresAt();
        if (kind == ValueKind.PUT && Entry.isExpired(expiresAt, nowMillis)) {
          kind = ValueKind.DELETE;
          expiresAt = Entry.NO_EXPIRY;
        }
        if (kind == ValueKind.DELETE && isBottomFor(k)) {
          continue;
        }
        if (out == null) {
          out = new Output(newFileNum.getAsLong());
        }
        long hash = BloomFormat.hash(k);
        // The cursor's own copy of the value, which the writer does not keep.
        byte[] v = kind == ValueKind.DELETE ? EMPTY : m.value();
        out.writer.add(k, hash, m.seqNum(), kind, v, m.version(), expiresAt);
        if (rowSources != null) {
          carryRow(out.fileNum, k, hash, new Lookup(m.seqNum(), kind, v, m.version(), expiresAt));
        }
        if (out.writer.estimatedFileSize() >= opt.targetFileBytes()) {
          finish(out);
          out = null;
        }
      }
      if (out != null) {
        finish(out);
        out = null;
      }
      if (!outputs.isEmpty()) {
        fs.syncDirectory(dir);
      }
      ok = true;
    } finally {
      if (!ok) {
        if (out != null) {
          out.abandon();
        }
        for (FileMetadata f : outputs) {
          deleteQuietly(f.fileNum());
        }
      }
    }
    for (FileMetadata f : outputs) {
      edit.addFile(c.outputLevel(), f);
    }
    return edit;
  }

  /** Deletes this job's outputs after its edit failed to log. */
  public void discardOutputs() {
    for (FileMetadata f : outputs) {
      deleteQuietly(f.fileNum());
    }
  }

  public long bytesWritten() {
    return bytesWritten;
  }

  public List<FileMetadata> outputs() {
    return outputs;
  }

  /**
   * Caches {@code row}, the output entry of {@code k} (the key's newest), for output file
   * {@code fileNum} when an input file has a row of it cached. {@code k} and the row's value are
   * arrays the cursor made for this entry and nobody changes; they are handed to the cache.
   */
  private void carryRow(long fileNum, byte[] k, long hash, Lookup row) {
    for (FileMetadata source : rowSources) {
      if (source.covers(k) && cache.hasRow(source.fileNum(), hash, k)) {
        cache.putRow(fileNum, hash, k, row);
        return;
      }
    }
  }

  private boolean isBottomFor(byte[] userKey) {
    Version v = c.version();
    for (int level = c.outputLevel() + 1; level < v.levelCount(); level++) {
      if (v.findFile(level, userKey) != null) {
        return false;
      }
    }
    return true;
  }

  private void finish(Output o) throws IOException {
    SstableWriter.Result r = o.writer.finish();
    cacheFillBudget -= o.writer.cacheFilledBytes();
    bytesWritten += r.fileSize();
    outputs.add(new FileMetadata(
        o.fileNum, r.fileSize(), r.entries(), r.smallestKey(), r.largestKey(), r.smallestSeq(), r.largestSeq(),
        r.stats()));
  }

  private void deleteQuietly(long fileNum) {
    cache.evictFile(fileNum);
    try {
      fs.delete(dir.resolve(SstableFormat.fileName(fileNum)));
    } catch (IOException e) {
      // Swept at the next open.
    }
  }

  /** One output file being written. Thread safety: confined. */
  private final class Output {
    final long fileNum;
    final SstableWriter writer;

    Output(long fileNum) throws IOException {
      this.fileNum = fileNum;
      this.writer =
          new SstableWriter(
              fs.open(dir.resolve(SstableFormat.fileName(fileNum)), FileSystem.OpenMode.CREATE_NEW),
              opt.blockBytes(), opt.bloomFpRate(), opt.compression());
      if (cacheFillBudget > 0) {
        writer.fillCache(cache, fileNum, cacheFillBudget);
      }
    }

    void abandon() {
      try {
        writer.close();
      } catch (IOException e) {
        // Deleted next.
      }
      deleteQuietly(fileNum);
    }
  }
}
