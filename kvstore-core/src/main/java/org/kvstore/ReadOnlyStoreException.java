package org.kvstore;

/**
 * The store refused a write because an earlier storage failure (a failed fsync, a failed write)
 * turned it read-only. Reads keep working; reopening the store recovers. The message names the
 * original failure and its file.
 *
 * <p>Thread safety: immutable.
 */
public final class ReadOnlyStoreException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public ReadOnlyStoreException(String reason, Throwable cause) {
    super("store is read-only after a storage failure: " + reason, cause);
  }
}
