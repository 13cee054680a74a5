package org.kvstore.lsm.version;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.FileStats;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.sstable.SstableReader;

/**
 * One live SSTable as the manifest records it: number, size, key range, sequence range, entry
 * count, what compaction may reclaim in it ({@link FileStats}); plus, at run time, how many {@link Version}s contain it and its lazily opened reader.
 *
 * <p>The reader (index and filter in memory) is admitted to {@link OpenFiles}, which drops it again
 * when more than {@code max.open.files} readers are resident; the next use then reopens it.
 *
 * <p>Thread safety: the recorded fields are immutable; {@code refs} is atomic; the reader is opened
 * under this object's monitor and published through a volatile field; a reader that is dropped
 * stays usable by threads that already hold it.
 */
public final class FileMetadata implements OpenFiles.Resident {
  private final long fileNum;
  private final long fileSize;
  private final long entries;
  private final byte[] smallest;
  private final byte[] largest;
  private final long smallestSeq;
  private final long largestSeq;
  private final FileStats stats;
  /** How many versions contain this file; the file is obsolete at 0. */
  final AtomicInteger refs = new AtomicInteger();
  private volatile SstableReader reader;
  private volatile long lastUse;

  public FileMetadata(
      long fileNum, long fileSize, long entries, byte[] smallest, byte[] largest, long smallestSeq,
      long largestSeq) {
    this(fileNum, fileSize, entries, smallest, largest, smallestSeq, largestSeq, FileStats.none());
  }

  public FileMetadata(
      long fileNum, long fileSize, long entries, byte[] smallest, byte[] largest, long smallestSeq,
      long largestSeq, FileStats stats) {
    this.stats = stats;
    this.fileNum = fileNum;
    this.fileSize = fileSize;
    this.entries = entries;
    this.smallest = smallest;
    this.largest = largest;
    this.smallestSeq = smallestSeq;
    this.largestSeq = largestSeq;
  }

  public long fileNum() {
    return fileNum;
  }

  public long fileSize() {
    return fileSize;
  }

  public long entries() {
    return entries;
  }

  /** Smallest user key. Callers must not modify it. */
  public byte[] smallest() {
    return smallest;
  }

  /** Largest user key. Callers must not modify it. */
  public byte[] largest() {
    return largest;
  }

  public long smallestSeq() {
    return smallestSeq;
  }

  public long largestSeq() {
    return largestSeq;
  }

  public FileStats stats() {
    return stats;
  }

  /** Whether {@code userKey} lies in {@code [smallest, largest]}. */
  public boolean covers(byte[] userKey) {
    return Arrays.compareUnsigned(userKey, smallest) >= 0 && Arrays.compareUnsigned(userKey, largest) <= 0;
  }

  /** Whether the file's range overlaps {@code [lo, hi]}; a {@code null} bound is open. */
  public boolean overlaps(byte[] lo, byte[] hi) {
    return (hi == null || Arrays.compareUnsigned(smallest, hi) <= 0)
        && (lo == null || Arrays.compareUnsigned(largest, lo) >= 0);
  }

  /** The reader, opened (index and filter read) when it is not resident. */
  public SstableReader reader(OpenFiles files, BlockCache cache) throws IOException {
    SstableReader r = reader;
    if (r != null) {
      long e = files.epoch();
      if (lastUse != e) {
        lastUse = e;
      }
      return r;
    }
    synchronized (this) {
      r = reader;
      if (r == null) {
        r = SstableReader.open(fileNum, files, cache);
        lastUse = files.epoch();
        reader = r;
        files.admit(this);
      }
    }
    return r;
  }

  @Override
  public long lastUse() {
    return lastUse;
  }

  @Override
  public void dropResident() {
    reader = null;
  }

  /** The reader if it is open, else {@code null}. */
  public SstableReader openedReader() {
    return reader;
  }

  @Override
  public String toString() {
    return "#" + fileNum + "(" + fileSize + " B, seq " + smallestSeq + ".." + largestSeq + ")";
  }
}
