package org.kvstore.bplus.buffer;

/**
 * A page pinned in the buffer pool: it cannot be evicted until {@link #close()}. Latch it shared
 * to read {@link #data()}, exclusively to change it (and then {@link #markDirty()}).
 *
 * <pre>{@code
 * try (PinnedPage p = pool.fetch(pageId)) {
 *   p.latchShared();
 *   read(p.data());
 * } // releases the latch, then the pin
 * }</pre>
 *
 * <p>Thread safety: confined to the thread that fetched it.
 */
public final class PinnedPage implements AutoCloseable {
  private static final int NONE = 0;
  private static final int SHARED = 1;
  private static final int EXCLUSIVE = 2;

  private final Frame frame;
  private final long pageId;
  private int latched;
  private long stamp;
  private boolean closed;

  PinnedPage(Frame frame, long pageId) {
    this.frame = frame;
    this.pageId = pageId;
  }

  public long pageId() {
    return pageId;
  }

  /** The page's bytes. REQUIRES: a latch (shared to read, exclusive to write). */
  public byte[] data() {
    return frame.data;
  }

  public PinnedPage latchShared() {
    assert latched == NONE;
    stamp = frame.latch.readLock();
    latched = SHARED;
    return this;
  }

  public PinnedPage latchExclusive() {
    assert latched == NONE;
    stamp = frame.latch.writeLock();
    latched = EXCLUSIVE;
    return this;
  }

  public boolean isExclusive() {
    return latched == EXCLUSIVE;
  }

  /** Releases the latch, keeping the pin. */
  public void unlatch() {
    if (latched == SHARED) {
      frame.latch.unlockRead(stamp);
    } else if (latched == EXCLUSIVE) {
      frame.latch.unlockWrite(stamp);
    }
    latched = NONE;
  }

  /** Records that the page changed. REQUIRES: the exclusive latch. */
  public void markDirty() {
    assert latched == EXCLUSIVE;
    frame.markDirty();
  }

  /** Releases the latch and the pin. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    unlatch();
    frame.unpin();
  }
}
