package org.kvstore.lsm.version;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import org.kvstore.spi.RefCount;

/**
 * An immutable set of live SSTables per level. Level 0 files may overlap and are ordered newest
 * first (by largest sequence number); files of levels 1 and up do not overlap and are ordered by
 * key. Readers pin a version with {@link #tryRef()}/{@link #unref()} so its files are not deleted
 * under them; the {@link VersionSet} holds one reference on its current version.
 *
 * <p>Thread safety: immutable apart from the atomic reference count.
 */
public final class Version {
  private final VersionSet owner;
  private final List<List<FileMetadata>> levels;
  private final RefCount refs = new RefCount(1);

  Version(VersionSet owner, List<List<FileMetadata>> levels) {
    this.owner = owner;
    List<List<FileMetadata>> copy = new ArrayList<>(levels.size());
    for (int i = 0; i < levels.size(); i++) {
      List<FileMetadata> files = new ArrayList<>(levels.get(i));
      if (i == 0) {
        files.sort(Comparator.comparingLong(FileMetadata::largestSeq).reversed());
      } else {
        files.sort((a, b) -> Arrays.compareUnsigned(a.smallest(), b.smallest()));
      }
      copy.add(Collections.unmodifiableList(files));
    }
    this.levels = Collections.unmodifiableList(copy);
    for (List<FileMetadata> l : this.levels) {
      for (FileMetadata f : l) {
        f.refs.incrementAndGet();
      }
    }
  }

  public int levelCount() {
    return levels.size();
  }

  /** The files of {@code level}: newest first for level 0, by key otherwise. */
  public List<FileMetadata> files(int level) {
    return levels.get(level);
  }

  public long levelBytes(int level) {
    long n = 0;
    for (FileMetadata f : levels.get(level)) {
      n += f.fileSize();
    }
    return n;
  }

  public long totalBytes() {
    long n = 0;
    for (int i = 0; i < levels.size(); i++) {
      n += levelBytes(i);
    }
    return n;
  }

  /** The tombstones of all files (as their stats recorded; 0 for files of manifest version 1). */
  public long totalTombstones() {
    long n = 0;
    for (List<FileMetadata> l : levels) {
      for (FileMetadata f : l) {
        n += f.stats().tombstones();
      }
    }
    return n;
  }

  public long totalEntries() {
    long n = 0;
    for (List<FileMetadata> l : levels) {
      for (FileMetadata f : l) {
        n += f.entries();
      }
    }
    return n;
  }

  /** In a sorted level (1 and up), the file whose range covers {@code userKey}, or {@code null}. */
  public FileMetadata findFile(int level, byte[] userKey) {
    List<FileMetadata> files = levels.get(level);
    int i = findFileIndex(files, userKey);
    if (i < files.size() && Arrays.compareUnsigned(files.get(i).smallest(), userKey) <= 0) {
      return files.get(i);
    }
    return null;
  }

  /**
   * In the files of a sorted level (1 and up: ordered by key, not overlapping), the index of the
   * first file whose largest key is at or after {@code userKey}, or the file count when there is
   * none: the only file that may hold {@code userKey}, and the first one a seek to it reads.
   */
  public static int findFileIndex(List<FileMetadata> sortedFiles, byte[] userKey) {
    int lo = 0;
    int hi = sortedFiles.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(sortedFiles.get(mid).largest(), userKey) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The files of {@code level} overlapping {@code [lo, hi]} (null bounds are open). */
  public List<FileMetadata> overlapping(int level, byte[] lo, byte[] hi) {
    List<FileMetadata> out = new ArrayList<>();
    for (FileMetadata f : levels.get(level)) {
      if (f.overlaps(lo, hi)) {
        out.add(f);
      }
    }
    return out;
  }

  /** Pins this version unless it was already released; returns whether it did. */
  public boolean tryRef() {
    return refs.tryAcquire();
  }

  /** Releases a pin; the last release lets the owner delete files no live version uses. */
  public void unref() {
    if (refs.release()) {
      List<FileMetadata> dead = new ArrayList<>();
      for (List<FileMetadata> l : levels) {
        for (FileMetadata f : l) {
          if (f.refs.decrementAndGet() == 0) {
            dead.add(f);
          }
        }
      }
      if (!dead.isEmpty()) {
        owner.filesObsolete(dead);
      }
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("Version[");
    for (int i = 0; i < levels.size(); i++) {
      if (!levels.get(i).isEmpty()) {
        sb.append(" L").append(i).append('=').append(levels.get(i));
      }
    }
    return sb.append(" ]").toString();
  }
}
