package org.kvstore;

/** A database or table of that name exists already. Thread safety: immutable. */
public final class AlreadyExistsException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public AlreadyExistsException(String message) {
    super(message);
  }

  public static AlreadyExistsException database(String database) {
    return new AlreadyExistsException("database '" + database + "' already exists");
  }

  public static AlreadyExistsException table(String database, String table) {
    return new AlreadyExistsException(
        "table '" + table + "' already exists in database '" + database + "'");
  }
}
