package org.kvstore.lsm.version;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.sstable.SstableReader;

/**
 * One live SSTable as the manifest records it: number, size, key range, sequence range, entry
 * count; plus, at run time, how many {@link Version}s contain it and its lazily opened reader.
 *
 * <p>Thread safety: the recorded fields are immutable; {@code refs} is atomic; the reader is opened
 * once under this object's monitor and published through a volatile field.
 */
public final class FileMetadata {
  private final long fileNum;
  private final long fileSize;
  private final long entries;
  private final byte[] smallest;
  private final byte[] largest;
  private final long smallestSeq;
  private final long largestSeq;
  /** How many versions contain this file; the file is obsolete at 0. */
  final AtomicInteger refs = new AtomicInteger();
  private volatile SstableReader reader;

  public FileMetadata(
      long fileNum, long fileSize, long entries, byte[] smallest, byte[] largest, long smallestSeq,
      long largestSeq) {
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

  /** Whether {@code userKey} lies in {@code [smallest, largest]}. */
  public boolean covers(byte[] userKey) {
    return Arrays.compareUnsigned(userKey, smallest) >= 0 && Arrays.compareUnsigned(userKey, largest) <= 0;
  }

  /** Whether the file's range overlaps {@code [lo, hi]}; a {@code null} bound is open. */
  public boolean overlaps(byte[] lo, byte[] hi) {
    return (hi == null || Arrays.compareUnsigned(smallest, hi) <= 0)
        && (lo == null || Arrays.compareUnsigned(largest, lo) >= 0);
  }

  /** The reader, opened on first use. */
  public SstableReader reader(OpenFiles files, BlockCache cache) throws IOException {
    SstableReader r = reader;
    if (r == null) {
      synchronized (this) {
        r = reader;
        if (r == null) {
          r = SstableReader.open(fileNum, files, cache);
          reader = r;
        }
      }
    }
    return r;
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
