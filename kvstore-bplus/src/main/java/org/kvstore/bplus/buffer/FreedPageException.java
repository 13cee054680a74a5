package org.kvstore.bplus.buffer;

/**
 * A page was asked for after it was freed: only a reference read without its owner's latch (a
 * cursor following an overflow chain) can see this, and it retries through the tree.
 *
 * <p>Thread safety: immutable.
 */
public final class FreedPageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public FreedPageException(long pageId) {
    super("page " + pageId + " is free", null, false, false);
  }
}
