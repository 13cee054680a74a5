package org.kvstore.lsm.version;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.kvstore.CorruptionException;
import org.kvstore.io.FileSystem;
import org.kvstore.io.NoSpace;
import org.kvstore.io.StorageFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live file set of one table across time: the current {@link Version}, the manifest that logs
 * every change as one atomic record (docs/format/manifest.md), and the counters that persist with
 * it (next file number, last sequence number, persisted LSN).
 *
 * <h2>Design</h2>
 *
 * <ul>
 *   <li>Atomicity: a flush or compaction becomes real only when its {@link VersionEdit} record is
 *       appended to the manifest and synced. Its output SSTables are synced (file and directory)
 *       before that; its input files are deleted only after it, and only once no pinned version
 *       contains them. A crash before the sync leaves unreferenced files, removed at the next open;
 *       a torn last record is ignored (it was never acknowledged).
 *   <li>Recovery: CURRENT names the manifest; replaying its records rebuilds the last version. Every
 *       open then writes a fresh manifest holding one snapshot record and switches CURRENT to it
 *       (temp file, sync, rename, directory sync), so appends never follow a torn tail. The same
 *       roll happens when the manifest grows past {@link #MANIFEST_ROLL_BYTES}.
 *   <li>Obsolete files: each {@link FileMetadata} counts the versions containing it; when the last
 *       one is released (by this set, a cursor or a compaction), the owner's listener deletes the
 *       file.
 *   <li>Locking: {@code lock} serializes manifest writes and version installs. It is only taken by
 *       background jobs (flush, compaction) and {@code open}/{@code close}; writers and readers never
 *       wait for it ({@link #current()} is a volatile read). Manifest I/O happens under it by
 *       design: the edits must reach the log in the order they are applied.
 *   <li>Failure: once a manifest write or sync fails, the manifest's state is unknown, so every
 *       later {@link #logAndApply} fails too (the table latches the error).
 * </ul>
 *
 * <p>Thread safety: thread-safe; see Locking above.
 */
public final class VersionSet implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VersionSet.class);
  /** A manifest is rewritten as one snapshot record once it grows past this size. */
  public static final long MANIFEST_ROLL_BYTES = 4L << 20;

  private final FileSystem fs;
  private final Path dir;
  private final int numLevels;
  private final Consumer<List<FileMetadata>> obsoleteListener;
  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicLong nextFileNum = new AtomicLong(1);
  private volatile Version current;
  private volatile long persistedLsn;
  @GuardedBy("lock")
  private long lastSeqNum;
  @GuardedBy("lock")
  private StorageFile manifest;
  @GuardedBy("lock")
  private long manifestFileNum;
  @GuardedBy("lock")
  private long manifestOffset;
  @GuardedBy("lock")
  private IOException manifestFailure;
  private volatile boolean closed;

  private VersionSet(
      FileSystem fs, Path dir, int numLevels, Consumer<List<FileMetadata>> obsoleteListener) {
    this.fs = fs;
    this.dir = dir;
    this.numLevels = numLevels;
    this.obsoleteListener = obsoleteListener;
  }

  /**
   * Recovers the version set of {@code dir} (or creates an empty one), then writes a fresh manifest.
   *
   * @param obsoleteListener called with files no live version contains any more (from whatever
   *     thread released the last version); it deletes them
   * @throws CorruptionException when CURRENT or the manifest is damaged
   */
  public static VersionSet open(
      FileSystem fs, Path dir, int numLevels, Consumer<List<FileMetadata>> obsoleteListener)
      throws IOException {
    VersionSet vs = new VersionSet(fs, dir, numLevels, obsoleteListener);
    vs.lock.lock();
    try {
      vs.recoverLocked();
      vs.writeNewManifestLocked();
    } finally {
      vs.lock.unlock();
    }
    return vs;
  }

  @GuardedBy("lock")
  private void recoverLocked() throws IOException {
    assert lock.isHeldByCurrentThread();
    List<Map<Long, FileMetadata>> levels = new ArrayList<>();
    for (int i = 0; i < numLevels; i++) {
      levels.add(new LinkedHashMap<>());
    }
    Path currentPath = dir.resolve(ManifestFormat.CURRENT);
    if (fs.exists(currentPath)) {
      byte[] cur = readAll(currentPath);
      String name;
      try {
        name = ManifestFormat.decodeCurrent(cur);
      } catch (IllegalArgumentException e) {
        throw new CorruptionException(currentPath, 0, e.getMessage());
      }
      Path mpath = dir.resolve(name);
      if (!fs.exists(mpath)) {
        throw new CorruptionException(mpath, -1, "the manifest named by CURRENT is missing");
      }
      manifestFileNum = Long.parseLong(name.substring(ManifestFormat.MANIFEST_PREFIX.length()));
      nextFileNum.set(manifestFileNum + 1);
      byte[] m = readAll(mpath);
      for (VersionEdit e : ManifestReader.read(mpath, m)) {
        applyToLevels(levels, e, mpath);
        if (e.persistedLsn >= 0) {
          persistedLsn = Math.max(persistedLsn, e.persistedLsn);
        }
        if (e.lastSeqNum >= 0) {
          lastSeqNum = Math.max(lastSeqNum, e.lastSeqNum);
        }
        if (e.nextFileNum >= 0) {
          nextFileNum.set(Math.max(nextFileNum.get(), e.nextFileNum));
        }
      }
    }
    List<List<FileMetadata>> lists = new ArrayList<>();
    for (Map<Long, FileMetadata> l : levels) {
      for (FileMetadata f : l.values()) {
        nextFileNum.set(Math.max(nextFileNum.get(), f.fileNum() + 1));
        lastSeqNum = Math.max(lastSeqNum, f.largestSeq());
      }
      lists.add(new ArrayList<>(l.values()));
    }
    current = new Version(this, lists);
  }

  private void applyToLevels(List<Map<Long, FileMetadata>> levels, VersionEdit e, Path mpath) {
    for (VersionEdit.Deletion d : e.deleted) {
      if (d.level() < 0 || d.level() >= numLevels || levels.get(d.level()).remove(d.fileNum()) == null) {
        throw new CorruptionException(
            mpath, -1, "edit deletes file " + d.fileNum() + " from level " + d.level() + ", where it is not");
      }
    }
    for (VersionEdit.LevelFile lf : e.added) {
      if (lf.level() < 0 || lf.level() >= numLevels) {
        throw new CorruptionException(mpath, -1, "edit adds a file at level " + lf.level());
      }
      levels.get(lf.level()).put(lf.file().fileNum(), lf.file());
    }
  }

  private byte[] readAll(Path p) throws IOException {
    try (StorageFile f = fs.open(p, FileSystem.OpenMode.READ)) {
      long size = f.size();
      if (size > Integer.MAX_VALUE - 16) {
        throw new CorruptionException(p, 0, "file of " + size + " bytes is too large");
      }
      byte[] b = new byte[(int) size];
      f.readFully(ByteBuffer.wrap(b), 0);
      return b;
    } catch (EOFException e) {
      throw new IOException("file shrank while being read: " + p, e);
    }
  }

  /** Writes a manifest holding the current state as one record and points CURRENT at it. */
  @GuardedBy("lock")
  private void writeNewManifestLocked() throws IOException {
    assert lock.isHeldByCurrentThread();
    long oldNum = manifestFileNum;
    StorageFile old = manifest;
    long num = nextFileNum.getAndIncrement();
    VersionEdit snap = snapshotEdit(current, persistedLsn, lastSeqNum, nextFileNum.get());
    StorageFile f = writeManifest(fs, dir, num, snap);
    manifestOffset = f.size();
    manifest = f;
    manifestFileNum = num;
    if (old != null) {
      old.close();
    }
    if (oldNum > 0 && oldNum != num) {
      fs.delete(dir.resolve(ManifestFormat.manifestName(oldNum)));
    }
  }

  /** One record holding the whole of {@code v} and the counters. */
  private static VersionEdit snapshotEdit(Version v, long persistedLsn, long lastSeq, long nextFile) {
    VersionEdit snap = new VersionEdit().persistedLsn(persistedLsn).lastSeqNum(lastSeq);
    for (int level = 0; level < v.levelCount(); level++) {
      for (FileMetadata fm : v.files(level)) {
        snap.addFile(level, fm);
      }
    }
    return snap.nextFileNum(nextFile);
  }

  /**
   * Writes {@code MANIFEST-num} in {@code dir} holding {@code snap} as its one record, syncs it, and
   * points CURRENT at it (temp file, sync, rename, directory sync).
   *
   * @return the new manifest, open for appends after its record
   */
  private static StorageFile writeManifest(FileSystem fs, Path dir, long num, VersionEdit snap)
      throws IOException {
    Path mpath = dir.resolve(ManifestFormat.manifestName(num));
    fs.delete(mpath); // a leftover of a crash during an earlier roll
    StorageFile f = fs.open(mpath, FileSystem.OpenMode.CREATE_NEW);
    Path tmp = dir.resolve(ManifestFormat.CURRENT_TEMP);
    boolean renamed = false;
    try {
      byte[] header = ManifestFormat.header();
      byte[] rec = ManifestFormat.encodeRecord(snap);
      f.writeFully(ByteBuffer.wrap(header), 0);
      f.writeFully(ByteBuffer.wrap(rec), header.length);
      f.sync();
      fs.delete(tmp);
      try (StorageFile t = fs.open(tmp, FileSystem.OpenMode.CREATE_NEW)) {
        t.writeFully(ByteBuffer.wrap(ManifestFormat.encodeCurrent(ManifestFormat.manifestName(num))), 0);
        t.sync();
      }
      fs.rename(tmp, dir.resolve(ManifestFormat.CURRENT));
      renamed = true;
      try {
        fs.syncDirectory(dir);
      } catch (IOException e) {
        throw NoSpace.syncFailed(dir.toString(), e);
      }
      return f;
    } catch (IOException | RuntimeException e) {
      f.close();
      if (!renamed) {
        // CURRENT still names the old manifest: the new files are of no use (and, on a full disk,
        // take the space the next try needs).
        try {
          fs.delete(tmp);
          fs.delete(mpath);
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  /**
   * A durable state to copy: the current version, pinned (the caller releases it), with the
   * persisted LSN and counters that were logged with it. Taken under the lock, so the LSN and the
   * file set belong together.
   */
  public record Snapshot(Version version, long persistedLsn, long lastSeqNum, long nextFileNum) {}

  /** Pins the current version with its counters; see {@link Snapshot}. */
  public Snapshot snapshot() throws IOException {
    lock.lock();
    try {
      if (closed) {
        throw new IOException("table closed");
      }
      return new Snapshot(acquireCurrent(), persistedLsn, lastSeqNum, nextFileNum.get());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Writes into {@code target} a manifest and CURRENT describing exactly {@code snap} (its SSTables
   * must already be there), so the directory opens as a table at {@code snap.persistedLsn()}.
   */
  public static void writeBackupManifest(FileSystem fs, Path target, Snapshot snap) throws IOException {
    long num = snap.nextFileNum();
    VersionEdit edit = snapshotEdit(snap.version(), snap.persistedLsn(), snap.lastSeqNum(), num + 1);
    writeManifest(fs, target, num, edit).close();
  }

  /** Allocates a file number for a new SSTable. */
  public long newFileNum() {
    return nextFileNum.getAndIncrement();
  }

  /** The current version, not pinned: use it only under a pin you hold, or for statistics. */
  public Version current() {
    return current;
  }

  /** The current version, pinned; the caller releases it with {@link Version#unref()}. */
  public Version acquireCurrent() {
    for (;;) {
      Version v = current;
      if (v.tryRef()) {
        return v;
      }
    }
  }

  public long persistedLsn() {
    return persistedLsn;
  }

  public long lastSeqNum() {
    lock.lock();
    try {
      return lastSeqNum;
    } finally {
      lock.unlock();
    }
  }

  public int numLevels() {
    return numLevels;
  }

  /** The live manifest's file number (for tests and the sweep of obsolete files). */
  public long manifestFileNum() {
    lock.lock();
    try {
      return manifestFileNum;
    } finally {
      lock.unlock();
    }
  }

  public long manifestBytes() {
    lock.lock();
    try {
      return manifestOffset;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether the manifest failed for good (an fsync, or a write that could not be cut back): an edit
   * whose {@link #logAndApply} failed may then be in the manifest file, so the files it adds must
   * stay (the next open keeps or sweeps them). Otherwise a failed edit is not in the manifest.
   */
  public boolean failed() {
    lock.lock();
    try {
      return manifestFailure != null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Logs {@code edit} durably, then installs the version it produces. REQUIRES: every file the edit
   * adds is synced and its directory entry durable.
   *
   * @throws IOException when the manifest cannot be written or synced; the set then refuses all
   *     later edits
   */
  public void logAndApply(VersionEdit edit) throws IOException {
    lock.lock();
    try {
      if (manifestFailure != null) {
        throw NoSpace.failedEarlier("manifest failed earlier; no more edits", manifestFailure);
      }
      if (closed) {
        throw new IOException("table closed");
      }
      Version base = current;
      List<List<FileMetadata>> levels = new ArrayList<>();
      for (int i = 0; i < numLevels; i++) {
        levels.add(new ArrayList<>(base.files(i)));
      }
      for (VersionEdit.Deletion d : edit.deleted) {
        if (!levels.get(d.level()).removeIf(f -> f.fileNum() == d.fileNum())) {
          throw new IllegalStateException("edit deletes file " + d.fileNum() + " absent from level " + d.level());
        }
      }
      for (VersionEdit.LevelFile lf : edit.added) {
        levels.get(lf.level()).add(lf.file());
      }
      edit.nextFileNum(nextFileNum.get());
      byte[] rec = ManifestFormat.encodeRecord(edit);
      try {
        manifest.writeFully(ByteBuffer.wrap(rec), manifestOffset);
      } catch (IOException e) {
        // Cut back to the last whole record; a full disk then fails only this edit, and the
        // flush or compaction that made it deletes its files and is retried later.
        try {
          manifest.truncate(manifestOffset);
        } catch (IOException undo) {
          e.addSuppressed(undo);
          manifestFailure = e;
          throw e;
        }
        if (!NoSpace.causedBy(e)) {
          manifestFailure = e;
        }
        throw e;
      }
      try {
        manifest.sync();
      } catch (IOException e) {
        manifestFailure = NoSpace.syncFailed(dir.resolve(ManifestFormat.manifestName(manifestFileNum)).toString(), e);
        throw manifestFailure;
      }
      manifestOffset += rec.length;
      if (edit.persistedLsn >= 0) {
        persistedLsn = Math.max(persistedLsn, edit.persistedLsn);
      }
      if (edit.lastSeqNum >= 0) {
        lastSeqNum = Math.max(lastSeqNum, edit.lastSeqNum);
      }
      Version next = new Version(this, levels);
      current = next;
      base.unref();
      if (manifestOffset > MANIFEST_ROLL_BYTES) {
        try {
          writeNewManifestLocked();
        } catch (IOException e) {
          if (!NoSpace.causedBy(e)) {
            manifestFailure = e;
            throw e;
          }
          // The edit is durable in the current manifest, which stays current; the roll is tried
          // again after the next edit.
          LOG.warn("manifest roll in {} failed for lack of space; the current manifest stays: {}", dir, e.toString());
        }
      }
    } finally {
      lock.unlock();
    }
  }

  void filesObsolete(List<FileMetadata> files) {
    if (closed) {
      return; // swept at the next open instead; deleting now could race the close
    }
    obsoleteListener.accept(files);
  }

  /** Closes the manifest. Versions still pinned stay readable; no file is deleted from now on. */
  @Override
  public void close() throws IOException {
    lock.lock();
    try {
      closed = true;
      if (manifest != null) {
        manifest.close();
        manifest = null;
      }
    } finally {
      lock.unlock();
    }
  }

  /** Logs what was recovered. */
  public void logState(String table) {
    LOG.info("table {}: {} persistedLsn={} lastSeq={} manifest={}", table, current, persistedLsn,
        lastSeqNum(), manifestFileNum());
  }
}
