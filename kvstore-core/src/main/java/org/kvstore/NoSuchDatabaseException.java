package org.kvstore;

/** The named database does not exist. Thread safety: immutable. */
public final class NoSuchDatabaseException extends KVStoreException {
  private static final long serialVersionUID = 1L;
  private final String database;

  public NoSuchDatabaseException(String database) {
    super("no such database '" + database + "'");
    this.database = database;
  }

  public String database() {
    return database;
  }
}
