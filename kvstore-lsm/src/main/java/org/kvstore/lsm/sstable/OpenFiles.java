package org.kvstore.lsm.sstable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;

/**
 * The open SSTable file handles, at most {@code max.open.files} of them idle at once: least recently
 * used handles are closed first, but never while a reader holds them (reference counts).
 *
 * <p>Thread safety: thread-safe; one monitor guards the map and the counts. Opening a file happens
 * under it (a short metadata operation); reads never do.
 */
public final class OpenFiles implements AutoCloseable {
  private final FileSystem fs;
  private final Path dir;
  private final int maxOpen;
  private final LinkedHashMap<Long, Handle> handles = new LinkedHashMap<>(64, 0.75f, true);
  private boolean closed;

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
  }
}
