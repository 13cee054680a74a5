package org.kvstore;

/**
 * A batch was not written because the precondition of one of its mutations did not hold. Nothing
 * of the batch was written.
 *
 * <p>Thread safety: immutable.
 */
public final class PreconditionFailedException extends KVStoreException {
  private static final long serialVersionUID = 1L;
  private final transient byte[] key;

  public PreconditionFailedException(String table, byte[] key, Precondition expected, Entry current) {
    super("precondition failed in table " + table + " for key "
        + org.kvstore.codec.Keys.printable(key) + ": expected " + expected + ", found "
        + (current == null ? "no key" : "version " + current.version()));
    this.key = key.clone();
  }

  /** The key whose precondition failed. */
  public byte[] key() {
    return key.clone();
  }
}
