package org.kvstore.bplus;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.io.StorageFile;

/**
 * A {@link FileSystem} for crash tests of the page file: once armed, the k-th write "crashes the
 * process" (that write is dropped, or half written when torn), and every later operation fails.
 * {@link #simulatePowerLoss(Random)} then undoes, per page position, a random suffix of the writes
 * not yet synced, as a machine crash might.
 *
 * <p>Thread safety: thread-safe (synchronized).
 */
final class CrashingFileSystem implements FileSystem {
  private final FileSystem inner = LocalFileSystem.INSTANCE;
  private long writesUntilCrash = -1;
  private boolean torn;
  private boolean crashed;
  private long writes;
  /** Unsynced writes, newest last: where, and the bytes they replaced. */
  private final Deque<Undo> unsynced = new ArrayDeque<>();

  private record Undo(StorageFile file, long position, byte[] before) {}

  /** The {@code k}-th write from now (1 = the next) crashes; torn: its first half reaches disk. */
  synchronized void crashAtWrite(long k, boolean tornWrite) {
    writesUntilCrash = k;
    torn = tornWrite;
  }

  synchronized boolean crashed() {
    return crashed;
  }

  synchronized long writes() {
    return writes;
  }

  /** Undoes a random suffix of each position's unsynced writes (newest first). */
  synchronized void simulatePowerLoss(Random rnd) throws IOException {
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

  private synchronized void check() throws IOException {
    if (crashed) {
      throw new IOException("process crashed (injected)");
    }
  }

  private synchronized void beforeWrite(StorageFile f, ByteBuffer src, long position)
      throws IOException {
    check();
    writes++;
    byte[] before = new byte[src.remaining()];
    long size = f.size();
    if (position < size) {
      ByteBuffer head = ByteBuffer.wrap(before, 0, (int) Math.min(before.length, size - position));
      f.readFully(head, position);
    }
    unsynced.add(new Undo(f, position, before));
    if (writesUntilCrash > 0 && --writesUntilCrash == 0) {
      crashed = true;
      if (torn) {
        ByteBuffer half = src.duplicate();
        half.limit(half.position() + src.remaining() / 2);
        f.writeFully(half, position);
      }
      throw new IOException("crashed at write " + writes + (torn ? " (torn)" : "") + " (injected)");
    }
  }

  @Override
  public StorageFile open(Path path, OpenMode mode) throws IOException {
    check();
    StorageFile f = inner.open(path, mode);
    return new StorageFile() {
      @Override
      public Path path() {
        return f.path();
      }

      @Override
      public int read(ByteBuffer dst, long position) throws IOException {
        check();
        return f.read(dst, position);
      }

      @Override
      public int write(ByteBuffer src, long position) throws IOException {
        beforeWrite(f, src, position);
        return f.write(src, position);
      }

      @Override
      public long size() throws IOException {
        check();
        return f.size();
      }

      @Override
      public void truncate(long size) throws IOException {
        check();
        f.truncate(size);
      }

      @Override
      public void sync() throws IOException {
        check();
        f.sync();
        synchronized (CrashingFileSystem.this) {
          unsynced.removeIf(u -> u.file() == f);
        }
      }

      @Override
      public void close() throws IOException {
        f.close();
      }
    };
  }

  @Override
  public boolean exists(Path path) {
    return inner.exists(path);
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    check();
    inner.createDirectories(dir);
  }

  @Override
  public List<String> list(Path dir) throws IOException {
    return inner.list(dir);
  }

  @Override
  public long size(Path path) throws IOException {
    return inner.size(path);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    check();
    inner.rename(source, target);
  }

  @Override
  public boolean delete(Path path) throws IOException {
    check();
    return inner.delete(path);
  }

  @Override
  public void deleteRecursively(Path dir) throws IOException {
    check();
    inner.deleteRecursively(dir);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    check();
    inner.createLink(link, existing);
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    check();
    inner.syncDirectory(dir);
  }

  @Override
  public Closeable tryLock(Path lockFile) throws IOException {
    return inner.tryLock(lockFile);
  }
}
