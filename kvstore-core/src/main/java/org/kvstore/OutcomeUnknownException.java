package org.kvstore;

/**
 * A write may or may not have taken effect: its log record was written, but a later step failed
 * (the log's fsync, or applying the record to the table). The record may be replayed after a
 * restart, so the write must not be reported as failed. A client that needs to know reads the
 * key(s) back once the store takes writes again, and may repeat the write if it is idempotent
 * (docs/durability.md, "What a client may assume").
 *
 * <p>Thread safety: immutable.
 */
public final class OutcomeUnknownException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public OutcomeUnknownException(String what, Throwable cause) {
    super("outcome unknown: " + what + "; the write was logged and may be applied after a restart: "
        + (cause == null ? "" : cause.getMessage()), cause);
  }

  private OutcomeUnknownException(Throwable cause, String message) {
    super(message, cause);
  }

  /**
   * An unknown outcome whose message is {@code message} as given: for writes that were handed to a
   * replication log, which may commit them after the caller stopped waiting.
   */
  public static OutcomeUnknownException withMessage(String message, Throwable cause) {
    return new OutcomeUnknownException(cause, message);
  }
}
