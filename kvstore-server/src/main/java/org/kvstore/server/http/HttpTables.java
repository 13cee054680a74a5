package org.kvstore.server.http;

import org.kvstore.KVStore;
import org.kvstore.NoSuchDatabaseException;
import org.kvstore.NoSuchTableException;
import org.kvstore.Table;
import org.kvstore.server.command.Keyspace;

/**
 * Finds the table and key a request names, with the errors a client expects: 404
 * {@code db_not_found} or {@code table_not_found}, 400 for an empty key, 414 {@code key_too_large}.
 * Tables {@code 0} to {@code databases - 1} of database {@code default} are RESP's numbered
 * databases and exist for HTTP exactly as for {@code SELECT n}: created on first use.
 *
 * <p>Thread safety: thread-safe.
 */
final class HttpTables {
  private final Keyspace keyspace;
  private final KVStore store;
  private final int maxKeyBytes;

  HttpTables(Keyspace keyspace) {
    this.keyspace = keyspace;
    this.store = keyspace.store();
    this.maxKeyBytes = store.options().maxKeyBytes();
  }

  Keyspace keyspace() {
    return keyspace;
  }

  KVStore store() {
    return store;
  }

  int maxKeyBytes() {
    return maxKeyBytes;
  }

  /** Table {@code {db}/{table}} of the request's path. */
  Table table(HttpExchange ex) {
    return table(ex.name("db"), ex.name("table"));
  }

  Table table(String db, String table) {
    try {
      return store.table(db, table);
    } catch (NoSuchDatabaseException | NoSuchTableException e) {
      int index = indexOf(db, table);
      if (index >= 0) {
        return keyspace.indexTable(index);
      }
      throw missing(e, db, table);
    }
  }

  /** The numbered database {@code db/table} is, or -1. */
  private int indexOf(String db, String table) {
    if (Keyspace.DEFAULT_DB.equals(db) && table.matches("0|[1-9][0-9]{0,8}")) {
      int n = Integer.parseInt(table);
      return n < keyspace.databases() ? n : -1;
    }
    return -1;
  }

  private static HttpProblem missing(RuntimeException e, String db, String table) {
    if (e instanceof NoSuchDatabaseException) {
      return new HttpProblem(ProblemCode.DB_NOT_FOUND, "database '" + db + "' does not exist");
    }
    return new HttpProblem(ProblemCode.TABLE_NOT_FOUND,
        "table '" + table + "' does not exist in database '" + db + "'");
  }

  /** The key of path parameter {@code {key}}. */
  byte[] pathKey(HttpExchange ex) {
    return checkKey(ex.bytesParam("key"), ProblemCode.KEY_TOO_LARGE);
  }

  /** {@code key} if it is 1 to max-key-bytes long; {@code tooLarge} is the problem when longer. */
  byte[] checkKey(byte[] key, ProblemCode tooLarge) {
    if (key.length == 0) {
      throw HttpProblem.invalid("key must not be empty");
    }
    if (key.length > maxKeyBytes) {
      throw new HttpProblem(tooLarge, key.length + "-byte key exceeds the limit of " + maxKeyBytes + " bytes");
    }
    return key;
  }

  /** A key as it appears in messages: its percent-encoded path form, cut after 200 characters. */
  static String shown(byte[] key) {
    String s = PercentCoding.encode(key);
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
