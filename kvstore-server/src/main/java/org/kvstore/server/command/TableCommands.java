package org.kvstore.server.command;

import java.util.List;
import java.util.Properties;
import java.util.function.BiConsumer;
import org.kvstore.AlreadyExistsException;
import org.kvstore.Cursor;
import org.kvstore.NoSuchDatabaseException;
import org.kvstore.NoSuchTableException;
import org.kvstore.Table;
import org.kvstore.TableInfo;

/**
 * Table administration and ordered ranges, for every protocol: create and drop tables, list
 * databases and tables, look a table up by name, describe it, and read a key range.
 *
 * <p>Errors: {@link CommandException} {@code ERR no such table: ...} when a named table or its
 * database is missing; the store's exceptions (a table that already exists, an unknown engine)
 * pass through.
 *
 * <p>Thread safety: thread-safe.
 */
public final class TableCommands {
  private final Keyspace keyspace;

  public TableCommands(Keyspace keyspace) {
    this.keyspace = keyspace;
  }

  /** Creates table {@code db.table} on {@code engine}, and the database when it is missing. */
  public void create(String db, String table, String engine, Properties properties) {
    if (!keyspace.store().listDBs().contains(db)) {
      try {
        keyspace.store().createDB(db);
      } catch (AlreadyExistsException raced) {
        // created meanwhile by another connection
      }
    }
    keyspace.store().createTable(db, table, engine, properties);
  }

  /** Drops table {@code db.table} and its data. */
  public void drop(String db, String table) {
    keyspace.store().dropTable(db, table);
    keyspace.forget(db, table);
  }

  /** The databases, by name. */
  public List<String> databases() {
    return keyspace.store().listDBs();
  }

  /** The tables of database {@code db}, by name. */
  public List<String> tables(String db) {
    return keyspace.store().listTables(db);
  }

  /**
   * The table {@code db.name}.
   *
   * @throws CommandException {@code ERR no such table: ...} when it or its database is missing
   */
  public Table existing(String db, String name) {
    try {
      return keyspace.table(db, name);
    } catch (NoSuchTableException | NoSuchDatabaseException e) {
      throw new CommandException("ERR no such table: " + e.getMessage());
    }
  }

  /** The engine, durability, size and statistics of table {@code db.name} (see {@link #existing}). */
  public TableInfo info(String db, String name) {
    return existing(db, name).info();
  }

  /**
   * Hands the entries from {@code start} (inclusive) to {@code end} (exclusive) to {@code sink}, in
   * key order, as the cursor reads them; a null bound is an open end; at most {@code limit} entries
   * (0: no limit). An exception from {@code sink} stops the scan.
   */
  public void range(Table t, byte[] start, byte[] end, int limit, BiConsumer<byte[], byte[]> sink) {
    try (Cursor c = t.scan(start, end, limit)) {
      while (c.next()) {
        sink.accept(c.key(), c.value());
      }
    }
  }
}
