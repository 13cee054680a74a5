package org.kvstore.bplus.buffer;

import java.util.concurrent.atomic.AtomicInteger;
import org.kvstore.testkit.RefCountContract;

/**
 * {@link Frame}'s pin count under the kit's {@link RefCountContract}: readers pin with
 * {@link Frame#tryPin()}; the owner's release is eviction, the lock-out of an unpinned frame
 * ({@link Frame#tryLockOut()}) that {@code BufferPool} makes when it picks a victim. A pinned frame
 * cannot be taken, so the release asks for the eviction and the last reader to unpin retries it (the
 * pool's hand comes back later); freeing is the successful claim.
 */
public class FramePinCountTest extends RefCountContract {
  private final Frame frame = new Frame(0, 64);
  private final AtomicInteger evictions = new AtomicInteger();
  private volatile boolean evictionWanted;

  @Override
  protected boolean tryRef() {
    return frame.tryPin();
  }

  @Override
  protected void unref() {
    frame.unpin();
    if (evictionWanted) {
      tryEvict();
    }
  }

  @Override
  protected void releaseOwner() {
    evictionWanted = true;
    tryEvict();
  }

  private void tryEvict() {
    if (frame.tryLockOut()) {
      evictions.incrementAndGet();
    }
  }

  @Override
  protected int freedCount() {
    return evictions.get();
  }
}
