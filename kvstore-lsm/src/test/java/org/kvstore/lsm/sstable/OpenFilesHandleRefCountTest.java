package org.kvstore.lsm.sstable;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.kvstore.io.StorageFile;
import org.kvstore.testkit.RefCountContract;

/**
 * {@link OpenFiles.Handle}'s reference count under the kit's {@link RefCountContract}: the map's
 * reference is the owner's ({@link OpenFiles#evict} drops it), readers pin with {@code tryRef};
 * freeing is closing the file.
 */
public class OpenFilesHandleRefCountTest extends RefCountContract {
  private final AtomicInteger closes = new AtomicInteger();
  private final OpenFiles.Handle handle = new OpenFiles.Handle(1, new CloseCountingFile(closes));

  @Override
  protected boolean tryRef() {
    return handle.tryRef();
  }

  @Override
  protected void unref() {
    handle.unref();
  }

  @Override
  protected void releaseOwner() {
    handle.unref();
  }

  @Override
  protected int freedCount() {
    return closes.get();
  }

  /** A file that only counts its closes. */
  private static final class CloseCountingFile implements StorageFile {
    private final AtomicInteger closes;

    CloseCountingFile(AtomicInteger closes) {
      this.closes = closes;
    }

    @Override
    public Path path() {
      return Path.of("000001.sst");
    }

    @Override
    public int read(ByteBuffer dst, long position) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int write(ByteBuffer src, long position) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long size() {
      return 0;
    }

    @Override
    public void truncate(long size) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void sync() {}

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }
}
