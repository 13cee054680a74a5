package org.kvstore.testkit.history;

/**
 * Thrown by a {@link RegisterClient} when its operation certainly had no effect: it was never sent
 * (no connection could be opened), or the store refused it with a reply that means nothing was
 * done (for a cluster: {@code -MOVED}, {@code -CLUSTERDOWN}). {@link RegisterWorkload} records it
 * as failed, which the checker leaves out, instead of indeterminate, which it must place anywhere
 * after the invocation (each indeterminate write multiplies the search).
 *
 * <p>Thread safety: immutable after construction.
 */
public final class NotDoneException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NotDoneException(String message, Throwable cause) {
    super(message, cause);
  }
}
