package org.kvstore;

/**
 * Root of every error the store reports. Unchecked: callers catch the specific subtype they can handle
 * ({@link NoSuchTableException}, {@link CorruptionException}, ...) and let the rest propagate.
 *
 * <p>Every subtype carries its context (the name, file or offset involved) in the message, so the
 * message alone tells an operator what went wrong and where.
 *
 * <p>Thread safety: immutable.
 */
public class KVStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KVStoreException(String message) {
    super(message);
  }

  public KVStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
