package org.kvstore.lsm.sstable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;

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
 * <p>Thread safety: thread-safe; one monitor guards the maps and the counts. Opening a file happens
 * under it (a short metadata operation); reads never do.
 */
public final class OpenFiles implements AutoCloseable {
  private final FileSystem fs;
  private final Path dir;
  private final int maxOpen;
  private final LinkedHashMap<Long, Handle> handles = new LinkedHashMap<>(64, 0.75f, true);
  private final java.util.Set<Resident> residents = new java.util.HashSet<>();
  private volatile long epoch;
  private boolean closed;

  /** An SSTable whose index and filter are held in memory until {@link #dropResident()}. */
  public interface Resident {
    long fileNum();

    /** The epoch of the last use (see {@link OpenFiles#epoch()}). */
    long lastUse();

    /** Releases the in-memory index and filter; a later use reopens them. */
    void dropResident();
  }

  public OpenFiles(FileSystem fs, Path dir, int maxOpen) {
    this.fs = fs;
    this.dir = dir;
    this.maxOpen = Math.max(1, maxOpen);
  }

  /** A file handle with its reference count. Release it with {@link OpenFiles#release}. */
  public static final class Handle {
    final long fileNum;
    public final StorageFile file;
    int refs;
    boolean evicted;

    Handle(long fileNum, StorageFile file) {
      this.fileNum = fileNum;
      this.file = file;
    }
  }

  public Path path(long fileNum) {
    return dir.resolve(SstableFormat.fileName(fileNum));
  }

  public synchronized Handle acquire(long fileNum) throws IOException {
    if (closed) {
      throw new IOException("table closed: cannot open " + path(fileNum));
    }
    Handle h = handles.get(fileNum);
    if (h == null) {
      h = new Handle(fileNum, fs.open(path(fileNum), FileSystem.OpenMode.READ));
      handles.put(fileNum, h);
      trimLocked();
    }
    h.refs++;
    return h;
  }

  public synchronized void release(Handle h) {
    h.refs--;
    if (h.refs == 0 && h.evicted) {
      closeQuietly(h);
    }
  }

  /** Closes the handle of a deleted file once idle. */
  public synchronized void evict(long fileNum) {
    Handle h = handles.remove(fileNum);
    if (h != null) {
      h.evicted = true;
      if (h.refs == 0) {
        closeQuietly(h);
      }
    }
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

  public synchronized int openCount() {
    return handles.size();
  }

  private void trimLocked() {
    Iterator<Map.Entry<Long, Handle>> it = handles.entrySet().iterator();
    while (handles.size() > maxOpen && it.hasNext()) {
      Handle h = it.next().getValue();
      it.remove();
      h.evicted = true;
      if (h.refs == 0) {
        closeQuietly(h);
      }
    }
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
      h.evicted = true;
      if (h.refs == 0) {
        closeQuietly(h);
      }
    }
    handles.clear();
    residents.clear();
  }
}
