package org.kvstore.bplus.buffer;

import java.util.concurrent.atomic.AtomicInteger;
import org.kvstore.testkit.RefCountContract;

/**
 * {@link Frame}'s pin count under the kit's {@link RefCountContract}: readers pin with
 * {@link Frame#tryPin()}; the owner's release is the eviction's claim of an unpinned frame (the
 * lock-out of an unpinned frame, {@link Frame#tryLockOut()}, that {@code BufferPool} makes when it
 * picks a victim), retried until
 * the pins are gone; freeing is that claim.
 */
public class FramePinCountTest extends RefCountContract {
  private final Frame frame = new Frame(0, 64);
  private final AtomicInteger evictions = new AtomicInteger();

  @Override
  protected boolean tryRef() {
    return frame.tryPin();
  }

  @Override
  protected void unref() {
    frame.unpin();
  }

  @Override
  protected void releaseOwner() {
    while (!frame.tryLockOut()) {
      Thread.yield(); // pinned: a reader is inside use() and will unpin
    }
    evictions.incrementAndGet();
  }

  @Override
  protected int freedCount() {
    return evictions.get();
  }
}
