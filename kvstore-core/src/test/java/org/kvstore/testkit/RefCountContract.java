package org.kvstore.testkit;

import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Validate;
import org.junit.jupiter.api.Test;

/**
 * The contract of a lock-free reference (or pin) count that frees its object once, checked by
 * Lincheck (model checking explores the interleavings of the CAS loops; a stress run adds real
 * threads). The object starts with its owner's reference; readers pin it ({@link #tryRef}), use it
 * and unpin it; the owner drops its reference once ({@link #releaseOwner}). Then:
 *
 * <ul>
 *   <li>a pin either fails, or holds the object unfreed until its unpin (so no pin succeeds once
 *       it is freed);
 *   <li>once the owner released it and its pins are gone, it is freed exactly once.
 * </ul>
 *
 * <p>A subclass adapts one implementation through the four methods below, in the implementation's
 * package (the methods are often package-private there), and must be public with a public
 * no-argument constructor that creates the object under test (Lincheck instantiates it).
 *
 * <p>Thread safety: Lincheck drives one instance per scenario from several threads; the subclass
 * methods must be as thread-safe as the implementation they adapt.
 */
public abstract class RefCountContract {
  /** Whether the owner released; only {@link #release} (never run in parallel with itself) writes it. */
  private volatile boolean ownerReleased;

  /** Pins the object unless it was freed (or, for a pin count, is being evicted). */
  protected abstract boolean tryRef();

  /** Drops a pin taken by {@link #tryRef}. */
  protected abstract void unref();

  /**
   * Drops the owner's reference; for a pin count that frees only when unpinned (eviction), waits
   * until it could free it.
   */
  protected abstract void releaseOwner();

  /** How many times the object was freed (closed, its files released, unmapped) so far. */
  protected abstract int freedCount();

  /**
   * A reader: pins, checks the object is not freed, unpins. True unless it pinned a freed object.
   * (Whether a pin succeeds is not part of the result: a pin after the owner's release still
   * succeeds while another reader holds one, which no sequential order of whole operations shows.)
   */
  @Operation
  public boolean use() {
    if (!tryRef()) {
      return true;
    }
    boolean unfreed = freedCount() == 0;
    unref();
    return unfreed;
  }

  /** The owner's release: true the first time, after which nothing can be pinned. */
  @Operation(nonParallelGroup = "owner")
  public boolean release() {
    if (ownerReleased) {
      return false;
    }
    ownerReleased = true;
    releaseOwner();
    return true;
  }

  /** After every scenario: freed exactly once if the owner released, never otherwise. */
  @Validate
  public void freedOnceAfterRelease() {
    int freed = freedCount();
    if (freed != (ownerReleased ? 1 : 0)) {
      throw new IllegalStateException("freed " + freed + " times, owner released: " + ownerReleased);
    }
  }

  @Test
  void refCount_modelChecked_pinsNeverSeeAFreedObjectAndItIsFreedOnce() {
    Lincheck.modelCheck(getClass(), 3, 2);
  }

  @Test
  void refCount_stressed_pinsNeverSeeAFreedObjectAndItIsFreedOnce() {
    Lincheck.stress(getClass(), 3, 3);
  }
}
