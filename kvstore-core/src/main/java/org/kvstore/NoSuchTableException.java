package org.kvstore;

/** The named table does not exist in its database. Thread safety: immutable. */
public final class NoSuchTableException extends KVStoreException {
  private static final long serialVersionUID = 1L;
  private final String database;
  private final String table;

  public NoSuchTableException(String database, String table) {
    super("no such table '" + table + "' in database '" + database + "'");
    this.database = database;
    this.table = table;
  }

  public String database() {
    return database;
  }

  public String table() {
    return table;
  }
}
