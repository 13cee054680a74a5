package org.kvstore.spi;

import java.io.IOException;

/**
 * Told by an engine when its own background work (a flush, a compaction) failed for lack of disk
 * space and left the previous state intact ({@link org.kvstore.io.NoSpace}). The store then refuses
 * writes at once and retries through {@link EngineTable#retryAfterNoSpace()} until it succeeds.
 *
 * <p>Thread safety: implementations are thread-safe; called from the engine's background threads.
 */
@FunctionalInterface
public interface SpaceListener {
  /** The background work of the table failed with {@code cause}, an ENOSPC failure. */
  void outOfSpace(IOException cause);

  /** A listener that ignores the reports (tests that open engine tables directly). */
  SpaceListener NONE = cause -> {};
}
