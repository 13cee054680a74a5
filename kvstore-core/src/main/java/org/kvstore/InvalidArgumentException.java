package org.kvstore;

/**
 * An argument was rejected before anything was changed: a bad name, an over-long key, an unknown
 * engine or an invalid table property. {@link #argument()} names the argument, the message says why.
 *
 * <p>Thread safety: immutable.
 */
public final class InvalidArgumentException extends KVStoreException {
  private static final long serialVersionUID = 1L;
  private final String argument;

  public InvalidArgumentException(String argument, String reason) {
    super("invalid " + argument + ": " + reason);
    this.argument = argument;
  }

  /** The name of the rejected argument, for example {@code "table name"} or {@code "key"}. */
  public String argument() {
    return argument;
  }
}
