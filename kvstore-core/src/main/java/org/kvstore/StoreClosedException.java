package org.kvstore;

/** The store (or a cursor or table handle of it) was used after {@code close()}. Thread safety: immutable. */
public final class StoreClosedException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public StoreClosedException(String what) {
    super(what + " is closed");
  }
}
