package org.kvstore.lsm;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import org.kvstore.Entry;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;
import org.kvstore.lsm.bloom.BloomFormat;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.lsm.memtable.MemTable;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.SstableFormat;
import org.kvstore.lsm.sstable.SstableWriter;
import org.kvstore.lsm.version.FileMetadata;

/**
 * Writes one immutable memtable to a new level-0 SSTable, keeping only the newest entry of each user
 * key (no reader needs older ones: cursors read the memtable object they pinned, never its SSTable),
 * then syncs the file and the directory. A put expired at the flush's clock time is written as a
 * tombstone (it keeps hiding older entries of its key; a compaction drops it where nothing older
 * lies below). The caller logs the manifest edit. With
 * {@code block.cache.fill.on.flush} the data blocks also go into the block cache as they are written;
 * with {@code row.cache} and {@code row.cache.fill.on.flush} the rows of the keys that point reads
 * found in the memtable go into the row cache, under the new file's number (dropped with the file
 * if the flush fails), so the memtable's read set stays as fast to read after the flush.
 *
 * <p>Thread safety: confined to the flush thread.
 */
final class FlushJob {
  private FlushJob() {}

  /** Returns the new file's metadata, or {@code null} when the memtable is empty. */
  static FileMetadata run(
      MemTable mem, long fileNum, FileSystem fs, Path dir, LsmOptions opt, BlockCache cache, Clock clock)
      throws IOException {
    if (mem.isEmpty()) {
      return null;
    }
    Path path = dir.resolve(SstableFormat.fileName(fileNum));
    StorageFile file = fs.open(path, FileSystem.OpenMode.CREATE_NEW);
    boolean ok = false;
    try (SstableWriter w = new SstableWriter(file, opt.blockBytes(), opt.bloomFpRate(), opt.compression());
        MemTable.MemTableCursor c = mem.newCursor(InternalKey.MAX_SEQ_NUM)) {
      if (opt.fillCacheOnFlush()) {
        w.fillCache(cache, fileNum);
      }
      boolean fillRows = opt.fillRowsOnFlush() && cache.cachesRows();
      long now = clock.millis();
      byte[] last = null;
      byte[] scratch = new byte[4096]; // arena values are copied here, not into an array each
      for (c.seekToFirst(); c.isValid(); c.next()) {
        byte[] k = c.userKey();
        if (last != null && Arrays.equals(last, k)) {
          continue;
        }
        last = k;
        long hash = BloomFormat.hash(k);
        ValueKind kind = c.kind();
        long expiresAt = c.expiresAt();
        byte[] value;
        int valueLen;
        if (kind == ValueKind.PUT && Entry.isExpired(expiresAt, now)) {
          kind = ValueKind.DELETE;
          value = MemTable.DELETED;
          valueLen = 0;
          expiresAt = Entry.NO_EXPIRY;
        } else {
          valueLen = c.valueLength();
          if (scratch.length < valueLen) {
            scratch = new byte[Math.max(valueLen, scratch.length * 2)];
          }
          value = c.valueInto(scratch);
        }
        w.add(k, hash, c.seqNum(), kind, value, valueLen, c.version(), expiresAt);
        if (fillRows && c.keyRead()) {
          // The memtable's key array is never changed; the row cache copies the value (a copy of
          // the scratch buffer's, which the next entry overwrites).
          byte[] row = value == scratch ? Arrays.copyOf(scratch, valueLen) : value;
          cache.putRow(fileNum, hash, k, new Lookup(c.seqNum(), kind, row, c.version(), expiresAt));
        }
      }
      SstableWriter.Result r = w.finish();
      fs.syncDirectory(dir);
      ok = true;
      return new FileMetadata(
          fileNum, r.fileSize(), r.entries(), r.smallestKey(), r.largestKey(), r.smallestSeq(), r.largestSeq(),
          r.stats());
    } finally {
      if (!ok) {
        cache.evictFile(fileNum);
        try {
          fs.delete(path);
        } catch (IOException suppressed) {
          // The orphan is swept at the next open.
        }
      }
    }
  }
}
