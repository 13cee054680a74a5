package org.kvstore.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A {@link FileSystem} over another one that injects faults, for tests of every engine:
 *
 * <ul>
 *   <li>{@link #failSyncs(Predicate)}: syncs of matching files (or directories) throw {@code EIO};
 *   <li>{@link #noSpaceForWrites(Predicate)}: writes to matching files throw
 *       {@code No space left on device};
 *   <li>{@link #diskFullAfter(long)}: once that many more bytes are written, writes throw
 *       {@code No space left on device} (until {@link #diskFullAfter(long)} with -1 frees space);
 *   <li>{@link #spaceQuota(Path, long, NoSpaceAt)}: the files under a directory may take that many
 *       bytes in all (deletes and truncations give space back); past it, ENOSPC surfaces where
 *       {@link NoSpaceAt} says: from {@code write} (a short write of what fits, then the error), from
 *       {@code sync} before any data is made durable, or from {@code close} (ext4's delayed
 *       allocation and NFS report it late);
 *   <li>{@link #crashAfter(long)}: after that many more mutating operations (write, sync, rename,
 *       delete, truncate, create), every later operation throws, as if the process died there;
 *       what reached the underlying file system stays as it is;
 *   <li>{@link #crashAtWrite(long, boolean)}: the k-th write from now dies (dropped, or torn: only
 *       its first half reaches the file), and every later operation throws;
 *   <li>{@link #recordUnsyncedWrites()} then {@link #simulatePowerLoss(Random)}: undoes, per file
 *       position, a random suffix of the writes not yet synced, as a machine crash might (pages
 *       reach the disk in any order until a sync).
 * </ul>
 *
 * It also records a trace of mutating operations ({@link #trace()}) for tests that check the order
 * of writes, syncs and renames.
 *
 * <p>Thread safety: thread-safe.
 */
public final class FaultInjectingFileSystem implements FileSystem {
  private final FileSystem inner;
  private volatile Predicate<Path> failSync = p -> false;
  private final AtomicLong bytesUntilFull = new AtomicLong(-1);
  private final AtomicLong opsUntilCrash = new AtomicLong(-1);
  private volatile boolean crashed;
  private final List<String> trace = Collections.synchronizedList(new ArrayList<>());
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong syncs = new AtomicLong();
  private final AtomicLong writesUntilCrash = new AtomicLong(-1);
  private volatile boolean tornCrash;
  private volatile boolean recordUnsynced;
  /** Unsynced writes, newest last: where, and the bytes they replaced. Guarded by itself. */
  private final Deque<Undo> unsynced = new ArrayDeque<>();

  /** Where a file system over its quota reports ENOSPC. */
  public enum NoSpaceAt {
    /** {@code write()}: a short write of what fits, then the error. */
    WRITE,
    /** {@code force()}: the write was taken, the sync fails before making it durable. */
    SYNC,
    /** {@code close()}: the write and sync were taken, closing reports the error. */
    CLOSE,
  }

  private final Object quotaLock = new Object();
  /** Bytes the files under {@link #quotaRoot} may take; -1: no quota. Guarded by quotaLock. */
  private long quotaBytes = -1;
  private Path quotaRoot;
  private long usedBytes;
  private NoSpaceAt noSpaceAt = NoSpaceAt.WRITE;
  /** Files written past the quota (SYNC and CLOSE modes) whose sync or close has to fail. */
  private final Set<Path> overQuota = new HashSet<>();

  private record Undo(StorageFile file, long position, byte[] before) {}

  /** Runs before every read of a file; may block (a slow disk) or throw (a failed read). */
  @FunctionalInterface
  public interface ReadHook {
    void beforeRead(Path file, long position) throws IOException;
  }

  private volatile ReadHook readHook = (file, position) -> {};
  private volatile Predicate<Path> noSpaceFor = p -> false;

  public FaultInjectingFileSystem(FileSystem inner) {
    this.inner = inner;
  }

  public FaultInjectingFileSystem() {
    this(LocalFileSystem.INSTANCE);
  }

  /** {@code hook} runs before every read from now on. */
  public FaultInjectingFileSystem onRead(ReadHook hook) {
    readHook = hook;
    return this;
  }

  /** Syncs of files and directories matching {@code which} fail from now on. */
  public FaultInjectingFileSystem failSyncs(Predicate<Path> which) {
    failSync = which;
    return this;
  }

  /**
   * Writes to files matching {@code which} throw {@code No space left on device} from now on (the
   * predicate may also look at the writing thread, to fail one kind of background work); a
   * predicate that matches nothing lifts it.
   */
  public FaultInjectingFileSystem noSpaceForWrites(Predicate<Path> which) {
    noSpaceFor = which;
    return this;
  }

  /** The disk fills up after {@code bytes} more bytes; -1 frees space again. */
  public FaultInjectingFileSystem diskFullAfter(long bytes) {
    bytesUntilFull.set(bytes);
    return this;
  }

  /**
   * From now on the files under {@code root} may take {@code bytes} in all (their current size
   * counts); past it ENOSPC surfaces as {@code at} says. {@code bytes} -1 lifts the quota.
   */
  public FaultInjectingFileSystem spaceQuota(Path root, long bytes, NoSpaceAt at) {
    synchronized (quotaLock) {
      if (bytes < 0) {
        quotaBytes = -1;
        overQuota.clear();
        return this;
      }
      if (quotaBytes < 0 || !root.equals(quotaRoot)) {
        usedBytes = du(root);
      }
      quotaRoot = root;
      quotaBytes = bytes;
      noSpaceAt = at;
      return this;
    }
  }

  /** Bytes the files under the quota's root take (as counted since the quota was set). */
  public long usedBytes() {
    synchronized (quotaLock) {
      return quotaBytes < 0 ? -1 : usedBytes;
    }
  }

  private static long du(Path root) {
    if (!java.nio.file.Files.isDirectory(root)) {
      return 0;
    }
    try (var paths = java.nio.file.Files.walk(root)) {
      return paths.filter(java.nio.file.Files::isRegularFile).mapToLong(p -> {
        try {
          return java.nio.file.Files.size(p);
        } catch (IOException e) {
          return 0; // deleted meanwhile
        }
      }).sum();
    } catch (IOException | java.io.UncheckedIOException e) {
      return 0;
    }
  }

  /** Whether the quota counts {@code p}. REQUIRES: quotaLock. */
  private boolean counted(Path p) {
    return quotaBytes >= 0 && p.toAbsolutePath().startsWith(quotaRoot.toAbsolutePath());
  }

  private static IOException enospc(String op, Path p) {
    return new IOException("No space left on device (injected) " + op + " " + p);
  }

  /** Gives back the space of {@code p}, about to be deleted or replaced. */
  private void release(Path p) {
    synchronized (quotaLock) {
      if (counted(p) && inner.exists(p)) {
        try {
          usedBytes -= inner.size(p);
        } catch (IOException e) {
          // gone meanwhile
        }
      }
      overQuota.remove(p);
    }
  }

  /** The "process" dies after {@code ops} more mutating operations; -1 cancels. */
  public FaultInjectingFileSystem crashAfter(long ops) {
    opsUntilCrash.set(ops);
    return this;
  }

  /** The {@code k}-th write from now (1 = the next) dies; torn: its first half reaches the file. */
  public FaultInjectingFileSystem crashAtWrite(long k, boolean torn) {
    tornCrash = torn;
    writesUntilCrash.set(k);
    return this;
  }

  /** From now on remembers what each write overwrote until its file is synced (for power loss). */
  public FaultInjectingFileSystem recordUnsyncedWrites() {
    recordUnsynced = true;
    return this;
  }

  /** Undoes a random suffix of each file position's unsynced writes (newest first). */
  public void simulatePowerLoss(Random rnd) throws IOException {
    synchronized (unsynced) {
      Set<String> kept = new HashSet<>();
      List<Undo> all = new ArrayList<>(unsynced);
      for (int i = all.size() - 1; i >= 0; i--) {
        Undo u = all.get(i);
        String where = u.file().path() + "@" + u.position();
        if (kept.contains(where)) {
          continue;
        }
        if (rnd.nextBoolean()) {
          u.file().writeFully(ByteBuffer.wrap(u.before()), u.position());
        } else {
          kept.add(where);
        }
      }
      unsynced.clear();
    }
  }

  public boolean crashed() {
    return crashed;
  }

  /** Clears all faults and the crashed state, keeping the trace. */
  public void heal() {
    failSync = p -> false;
    bytesUntilFull.set(-1);
    opsUntilCrash.set(-1);
    writesUntilCrash.set(-1);
    crashed = false;
  }

  /** Mutating operations so far, like {@code write CATALOG.tmp 0+120}, {@code sync CATALOG.tmp}. */
  public List<String> trace() {
    synchronized (trace) {
      return List.copyOf(trace);
    }
  }

  public void clearTrace() {
    trace.clear();
  }

  public long writeCount() {
    return writes.get();
  }

  public long syncCount() {
    return syncs.get();
  }

  private void mutating(String op) throws IOException {
    checkCrashed();
    long left = opsUntilCrash.get();
    if (left >= 0) {
      if (left == 0) {
        crashed = true;
        throw new IOException("crashed before " + op + " (injected)");
      }
      opsUntilCrash.decrementAndGet();
    }
    trace.add(op);
  }

  private void checkCrashed() throws IOException {
    if (crashed) {
      throw new IOException("process crashed (injected)");
    }
  }

  private static String name(Path p) {
    Path f = p.getFileName();
    return f == null ? p.toString() : f.toString();
  }

  @Override
  public StorageFile open(Path path, OpenMode mode) throws IOException {
    if (mode == OpenMode.READ) {
      checkCrashed();
    } else {
      mutating("open " + name(path) + " " + mode);
    }
    return new FaultFile(inner.open(path, mode));
  }

  @Override
  public boolean exists(Path path) {
    return inner.exists(path);
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    checkCrashed();
    inner.createDirectories(dir);
  }

  @Override
  public List<String> list(Path dir) throws IOException {
    checkCrashed();
    return inner.list(dir);
  }

  @Override
  public long size(Path path) throws IOException {
    checkCrashed();
    return inner.size(path);
  }

  /** The inner file system's answer, or what the quota leaves when {@code dir} is under it. */
  @Override
  public long usableSpace(Path dir) throws IOException {
    checkCrashed();
    long inner = this.inner.usableSpace(dir);
    synchronized (quotaLock) {
      if (counted(dir)) {
        return Math.max(0, Math.min(inner, quotaBytes - usedBytes));
      }
    }
    long untilFull = bytesUntilFull.get();
    return untilFull >= 0 ? Math.min(inner, untilFull) : inner;
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    mutating("rename " + name(source) + " " + name(target));
    release(target);
    inner.rename(source, target);
    synchronized (quotaLock) {
      if (overQuota.remove(source)) {
        overQuota.add(target);
      }
    }
  }

  @Override
  public boolean delete(Path path) throws IOException {
    mutating("delete " + name(path));
    release(path);
    return inner.delete(path);
  }

  @Override
  public void deleteRecursively(Path dir) throws IOException {
    mutating("deleteRecursively " + name(dir));
    synchronized (quotaLock) {
      if (counted(dir)) {
        usedBytes -= du(dir);
      }
    }
    inner.deleteRecursively(dir);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    mutating("link " + name(link) + " " + name(existing));
    inner.createLink(link, existing);
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    mutating("syncdir " + name(dir));
    syncs.incrementAndGet();
    if (failSync.test(dir)) {
      throw new IOException("EIO (injected) syncing directory " + dir);
    }
    inner.syncDirectory(dir);
  }

  @Override
  public Closeable tryLock(Path lockFile) throws IOException {
    return inner.tryLock(lockFile);
  }

  /** A file whose writes and syncs pass through the fault checks. */
  private final class FaultFile implements StorageFile {
    private final StorageFile f;

    FaultFile(StorageFile f) {
      this.f = f;
    }

    @Override
    public Path path() {
      return f.path();
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      checkCrashed();
      readHook.beforeRead(f.path(), position);
      return f.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      mutating("write " + name(f.path()) + " " + position + "+" + src.remaining());
      long writeNumber = writes.incrementAndGet();
      if (recordUnsynced) {
        rememberOverwritten(src, position);
      }
      if (writesUntilCrash.get() > 0 && writesUntilCrash.decrementAndGet() == 0) {
        crashed = true;
        if (tornCrash) {
          ByteBuffer half = src.duplicate();
          half.limit(half.position() + src.remaining() / 2);
          f.writeFully(half, position);
        }
        throw new IOException("crashed at write " + writeNumber + (tornCrash ? " (torn)" : "") + " (injected)");
      }
      if (noSpaceFor.test(f.path())) {
        throw enospc("writing", f.path());
      }
      Integer short_ = quotaWrite(src, position);
      if (short_ != null) {
        return short_;
      }
      long budget = bytesUntilFull.get();
      if (budget >= 0) {
        if (budget < src.remaining()) {
          // Like ext4: a short write of what fits, then ENOSPC on the next call.
          if (budget > 0) {
            ByteBuffer part = src.duplicate();
            part.limit(part.position() + (int) budget);
            int n = f.write(part, position);
            src.position(src.position() + n);
            bytesUntilFull.addAndGet(-n);
            return n;
          }
          throw new IOException("No space left on device (injected) writing " + f.path());
        }
        bytesUntilFull.addAndGet(-src.remaining());
      }
      return f.write(src, position);
    }

    /**
     * Applies the quota to a write: returns the count of a short write made here (or throws
     * ENOSPC) in WRITE mode when it does not fit, null when the caller writes it all.
     */
    private Integer quotaWrite(ByteBuffer src, long position) throws IOException {
      synchronized (quotaLock) {
        if (!counted(f.path())) {
          return null;
        }
        long size = f.size();
        long grow = Math.max(0, position + src.remaining() - size);
        if (usedBytes + grow <= quotaBytes) {
          usedBytes += grow;
          return null;
        }
        if (noSpaceAt != NoSpaceAt.WRITE) {
          usedBytes += grow; // taken now, reported at sync or close
          overQuota.add(f.path());
          return null;
        }
        long fits = Math.max(0, size - position) + Math.max(0, quotaBytes - usedBytes);
        if (fits <= 0) {
          throw enospc("writing", f.path());
        }
        ByteBuffer part = src.duplicate();
        part.limit(part.position() + (int) Math.min(fits, src.remaining()));
        int n = f.write(part, position);
        src.position(src.position() + n);
        usedBytes += Math.max(0, position + n - size);
        return n;
      }
    }

    /** Throws ENOSPC when this file was written past the quota and the space is still not there. */
    private void checkOverQuota(String op) throws IOException {
      synchronized (quotaLock) {
        if (overQuota.contains(f.path())) {
          if (quotaBytes >= 0 && usedBytes > quotaBytes) {
            throw enospc(op, f.path());
          }
          overQuota.remove(f.path());
        }
      }
    }

    @Override
    public long size() throws IOException {
      checkCrashed();
      return f.size();
    }

    @Override
    public void truncate(long size) throws IOException {
      mutating("truncate " + name(f.path()) + " " + size);
      synchronized (quotaLock) {
        long before = f.size();
        f.truncate(size);
        if (counted(f.path()) && size < before) {
          usedBytes -= before - size;
        }
      }
    }

    @Override
    public void sync() throws IOException {
      mutating("sync " + name(f.path()));
      syncs.incrementAndGet();
      if (failSync.test(f.path())) {
        throw new IOException("EIO (injected) syncing " + f.path());
      }
      NoSpaceAt at;
      synchronized (quotaLock) {
        at = noSpaceAt;
      }
      if (at == NoSpaceAt.SYNC) {
        checkOverQuota("syncing");
      }
      f.sync();
      synchronized (unsynced) {
        unsynced.removeIf(u -> u.file() == f);
      }
    }

    /** Keeps the bytes a write at {@code position} is about to replace, until the file is synced. */
    private void rememberOverwritten(ByteBuffer src, long position) throws IOException {
      byte[] before = new byte[src.remaining()];
      long size = f.size();
      if (position < size) {
        f.readFully(ByteBuffer.wrap(before, 0, (int) Math.min(before.length, size - position)), position);
      }
      synchronized (unsynced) {
        unsynced.add(new Undo(f, position, before));
      }
    }

    @Override
    public void close() throws IOException {
      f.close();
      NoSpaceAt at;
      synchronized (quotaLock) {
        at = noSpaceAt;
      }
      if (at == NoSpaceAt.CLOSE) {
        checkOverQuota("closing");
      }
    }
  }
}
