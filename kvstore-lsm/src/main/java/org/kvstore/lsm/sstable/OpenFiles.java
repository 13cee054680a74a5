package org.kvstore.lsm.sstable;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.file.Path;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;
import org.kvstore.spi.RefCount;

/**
 * The cap on open SSTables ({@code max.open.files}): at most that many file handles are kept open
 * (least recently used ones are closed first, but never while a reader holds them: reference
 * counts), and at most that many {@link Resident}s keep their index and bloom filter in memory.
 * When one more is admitted, the least recently used resident is dropped (its index and filter
 * become garbage and are read again from the file at its next use) and its handle closed.
 *
 * <p>Recency of residents is tracked without a lock on the read path: each admission starts a new
 * epoch, and a resident stamps the current epoch on use (a plain volatile write, skipped when the
 * stamp is already current); the victim is the resident with the oldest stamp.
 *
 * <p>Thread safety: thread-safe. Acquiring an open handle is lock-free (a concurrent map lookup and
 * a reference-count CAS), so reads of many threads do not meet on a lock; opening a file, evicting
 * and admitting take this object's monitor (opening a file is a short metadata operation).
 */
public final class OpenFiles implements AutoCloseable {
  private final FileSystem fs;
  private final Path dir;
  private final int maxOpen;
  /** Open handles; reads look up without a lock, opens and evictions change it under the monitor. */
  private final java.util.concurrent.ConcurrentHashMap<Long, Handle> handles =
      new java.util.concurrent.ConcurrentHashMap<>();
  @GuardedBy("this")
  private final java.util.Set<Resident> residents = new java.util.HashSet<>();
  private volatile long epoch;
  private volatile boolean closed;

  public OpenFiles(FileSystem fs, Path dir, int maxOpen) {
    this.fs = fs;
    this.dir = dir;
    this.maxOpen = Math.max(1, maxOpen);
  }

  /**
   * A file handle with its reference count: one reference for being in the map, one per reader
   * holding it; the file is closed when the count reaches 0, and cannot be acquired after that.
   * Release it with {@link OpenFiles#release}.
   */
  public static final class Handle {
    final long fileNum;
    public final StorageFile file;
    private final RefCount refs = new RefCount(1);
    private volatile long lastUse;

    Handle(long fileNum, StorageFile file) {
      this.fileNum = fileNum;
      this.file = file;
    }

    boolean tryRef() {
      return refs.tryAcquire();
    }

    void unref() {
      if (refs.release()) {
        closeQuietly(this);
      }
    }
  }

  public Path path(long fileNum) {
    return dir.resolve(SstableFormat.fileName(fileNum));
  }

  /** The open handle of {@code fileNum}, opening the file when needed; lock-free when it is open. */
  public Handle acquire(long fileNum) throws IOException {
    Handle h = handles.get(fileNum);
    if (h != null && h.tryRef()) {
      long e = epoch;
      if (h.lastUse != e) {
        h.lastUse = e;
      }
      return h;
    }
    return acquireSlow(fileNum);
  }

  private synchronized Handle acquireSlow(long fileNum) throws IOException {
    if (closed) {
      throw new IOException("table closed: cannot open " + path(fileNum));
    }
    Handle h = handles.get(fileNum);
    if (h != null && h.tryRef()) {
      return h;
    }
    h = new Handle(fileNum, fs.open(path(fileNum), FileSystem.OpenMode.READ));
    epoch++;
    h.lastUse = epoch;
    h.refs.acquire(); // the caller's reference
    handles.put(fileNum, h);
    trimLocked(h);
    return h;
  }

  public void release(Handle h) {
    h.unref();
  }

  /** Closes the handle of {@code fileNum} once idle (a deleted file, or a dropped reader). */
  public synchronized void evict(long fileNum) {
    Handle h = handles.remove(fileNum);
    if (h != null) {
      h.unref();
    }
  }

  @GuardedBy("this")
  private void trimLocked(Handle keep) {
    assert Thread.holdsLock(this);
    while (handles.size() > maxOpen) {
      Handle victim = null;
      for (Handle x : handles.values()) {
        if (x != keep && (victim == null || x.lastUse < victim.lastUse)) {
          victim = x;
        }
      }
      if (victim == null) {
        return;
      }
      handles.remove(victim.fileNum);
      victim.unref();
    }
  }

  /** An SSTable whose index and filter are held in memory until {@link #dropResident()}. */
  public interface Resident {
    long fileNum();

    /** The epoch of the last use (see {@link OpenFiles#epoch()}). */
    long lastUse();

    /** Releases the in-memory index and filter; a later use reopens them. */
    void dropResident();
  }

  /** The current epoch, to stamp on a resident's use. */
  public long epoch() {
    return epoch;
  }

  /**
   * Records that {@code r} now holds its index and filter in memory; drops the least recently used
   * other residents while more than {@code max.open.files} are held.
   */
  public synchronized void admit(Resident r) {
    epoch++;
    residents.add(r);
    while (residents.size() > maxOpen) {
      Resident victim = null;
      for (Resident x : residents) {
        if (x != r && (victim == null || x.lastUse() < victim.lastUse())) {
          victim = x;
        }
      }
      residents.remove(victim);
      victim.dropResident();
      evict(victim.fileNum());
    }
  }

  /** Forgets a resident (its file was deleted). */
  public synchronized void forget(Resident r) {
    residents.remove(r);
  }

  /** The residents holding index and filter in memory now. */
  public synchronized int residentCount() {
    return residents.size();
  }

  public int openCount() {
    return handles.size();
  }

  private static void closeQuietly(Handle h) {
    try {
      h.file.close();
    } catch (IOException e) {
      // A read-only handle: nothing was written through it, so nothing can be lost here.
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (Handle h : handles.values()) {
      h.unref();
    }
    handles.clear();
    residents.clear();
  }
}
