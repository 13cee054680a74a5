package org.kvstore.server.command;

import java.util.Properties;
import java.util.regex.Pattern;
import org.kvstore.KVStore;

/**
 * Database and table life cycle as every front end but RESP's numbered databases sees it: names
 * are checked the same way, a database that still has tables is dropped only when forced, and
 * dropping forgets the handles {@link Keyspace} keeps for {@code SELECT n}.
 *
 * <p>Thread safety: thread-safe (the store's catalog serializes changes).
 */
public final class Catalog {
  /** A database or table name: a letter, digit or '_', then up to 127 of those or '.', '-'. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");

  private final Keyspace keyspace;

  public Catalog(Keyspace keyspace) {
    this.keyspace = keyspace;
  }

  public KVStore store() {
    return keyspace.store();
  }

  /** The engine tables get when none is named. */
  public String defaultEngine() {
    return keyspace.defaultEngine();
  }

  /** Whether {@code name} is a valid database or table name. */
  public static boolean validName(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /**
   * Drops database {@code db}; with tables only when {@code force}.
   *
   * @return false (nothing dropped) when it has tables and {@code force} is false
   * @throws org.kvstore.NoSuchDatabaseException when it does not exist
   */
  public boolean dropDatabase(String db, boolean force) {
    if (!force && !store().listTables(db).isEmpty()) {
      return false;
    }
    store().dropDB(db);
    keyspace.forget(db, null);
    return true;
  }

  /** Creates table {@code db.table}; the database must exist. */
  public void createTable(String db, String table, String engine, Properties properties) {
    store().createTable(db, table, engine == null ? defaultEngine() : engine, properties);
  }

  /** Drops table {@code db.table} and forgets its handles. */
  public void dropTable(String db, String table) {
    store().dropTable(db, table);
    keyspace.forget(db, table);
  }
}
