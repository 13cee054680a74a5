package org.kvstore.server.command;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.kvstore.AlreadyExistsException;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.kvstore.NoSuchDatabaseException;
import org.kvstore.Table;
import org.kvstore.TableInfo;

/**
 * Maps Redis' numbered databases onto store tables: index {@code n} ({@code SELECT n}) is table
 * {@code "n"} of database {@value #DEFAULT_DB}, created with the default engine on first use.
 * {@code KV.USE db table} reaches any other table by name.
 *
 * <p>Thread safety: thread-safe. Table creation is serialized by the store's catalog; a race
 * between two connections creating the same index table is resolved by using the winner's table.
 */
public final class Keyspace {
  public static final String DEFAULT_DB = "default";
  /** Redis Cluster's reply to {@code SELECT} of a database other than 0. */
  public static final String SELECT_IN_CLUSTER = "ERR SELECT is not allowed in cluster mode";
  /** Engines in order of preference when none is configured. */
  static final List<String> ENGINE_PREFERENCE = List.of("lsm", "bplus", "memory");

  private final KVStore store;
  private final String defaultEngine;
  private final int databases;
  private final Map<Integer, Table> indexTables = new ConcurrentHashMap<>();
  /** Whether a table's writes wait for an fsync (then they run on worker threads). */
  private final Map<Table, Boolean> syncTables = new ConcurrentHashMap<>();

  /** Set on a cluster node: database 0 is then the table over every shard, and the only one. */
  private final org.kvstore.server.cluster.ClusterFrontEnd cluster;

  public Keyspace(KVStore store, String defaultEngine, int databases) {
    this.store = store;
    this.defaultEngine = defaultEngine;
    this.databases = databases;
    this.cluster = null;
  }

  /**
   * The keyspace of a cluster node: database 0 is {@code cluster}'s table over every shard, as in
   * Redis Cluster the only database; {@code SELECT} of another and other tables are refused.
   */
  public Keyspace(org.kvstore.server.cluster.ClusterFrontEnd cluster) {
    this.store = cluster.node().store();
    this.defaultEngine = cluster.node().layout().engine();
    this.databases = 1;
    this.cluster = cluster;
    indexTables.put(0, cluster.table());
  }

  /** The cluster this node belongs to, or null on a single server. */
  public org.kvstore.server.cluster.ClusterFrontEnd cluster() {
    return cluster;
  }

  /**
   * The engine new tables get: {@code requested} when given (it must be available), else the first
   * of lsm, bplus, memory that is on the class path.
   *
   * @throws IllegalArgumentException naming the available engines when {@code requested} is not one
   */
  public static String chooseEngine(Set<String> available, String requested) {
    if (requested != null) {
      String r = requested.toLowerCase(java.util.Locale.ROOT);
      if (!available.contains(r)) {
        throw new IllegalArgumentException(
            "engine '" + requested + "' is not available (available: " + String.join(", ", available) + ")");
      }
      return r;
    }
    for (String e : ENGINE_PREFERENCE) {
      if (available.contains(e)) {
        return e;
      }
    }
    if (available.isEmpty()) {
      throw new IllegalArgumentException("no table engine is on the class path");
    }
    return available.iterator().next();
  }

  public KVStore store() {
    return store;
  }

  public String defaultEngine() {
    return defaultEngine;
  }

  /** Number of indexes SELECT accepts (0 to databases - 1). */
  public int databases() {
    return databases;
  }

  /** Creates database {@value #DEFAULT_DB} and its table {@code 0} when missing. */
  public void ensureDefaults() {
    indexTable(0);
  }

  /** The table behind index {@code n}, created on first use. REQUIRES: 0 <= n < databases. */
  public Table indexTable(int n) {
    Table t = indexTables.get(n);
    if (t != null) {
      return t;
    }
    if (cluster != null) {
      throw new CommandException(SELECT_IN_CLUSTER);
    }
    String name = Integer.toString(n);
    try {
      t = store.table(DEFAULT_DB, name);
    } catch (NoSuchDatabaseException e) {
      try {
        store.createDB(DEFAULT_DB);
      } catch (AlreadyExistsException raced) {
        // another connection created it
      }
      t = null;
    } catch (org.kvstore.NoSuchTableException e) {
      t = null;
    }
    if (t == null) {
      try {
        store.createTable(DEFAULT_DB, name, defaultEngine, new Properties());
      } catch (AlreadyExistsException raced) {
        // another connection created it
      }
      t = store.table(DEFAULT_DB, name);
    }
    indexTables.put(n, t);
    return t;
  }

  /**
   * The table {@code db.table}; on a cluster node only {@code default/0}, the table over every shard.
   *
   * @throws org.kvstore.NoSuchTableException when missing
   */
  public Table table(String db, String table) {
    if (cluster != null) {
      if (DEFAULT_DB.equals(db) && "0".equals(table)) {
        return cluster.table();
      }
      throw new org.kvstore.InvalidArgumentException("table", "a cluster node serves only table " + DEFAULT_DB
          + "/0 (Redis' database 0, spread over the shards), not " + db + "/" + table);
    }
    return store.table(db, table);
  }

  /** Drops cached handles of a dropped table (or of all tables of a dropped database). */
  public void forget(String db, String table) {
    if (DEFAULT_DB.equals(db)) {
      indexTables.entrySet().removeIf(e -> table == null || e.getKey().toString().equals(table));
    }
    syncTables.keySet().removeIf(t -> t.database().equals(db) && (table == null || t.name().equals(table)));
  }

  /** Whether writes to {@code table} wait for an fsync (durability sync). */
  public boolean syncWrites(Table table) {
    Boolean sync = syncTables.get(table);
    if (sync == null) {
      try {
        TableInfo info = table.info();
        sync = info.durability() == Durability.SYNC;
      } catch (KVStoreException e) {
        return true; // unknown: be safe and keep it off the event loop
      }
      syncTables.put(table, sync);
    }
    return sync;
  }

  /** Tables of database {@value #DEFAULT_DB} that are named by an index, with their index. */
  public Map<Integer, Table> existingIndexTables() {
    Map<Integer, Table> out = new java.util.TreeMap<>();
    if (cluster != null) {
      out.put(0, cluster.table());
      return out;
    }
    List<String> names;
    try {
      names = store.listTables(DEFAULT_DB);
    } catch (NoSuchDatabaseException e) {
      return out;
    }
    for (String name : names) {
      if (name.matches("0|[1-9][0-9]{0,8}")) {
        int n = Integer.parseInt(name);
        if (n < databases) {
          out.put(n, indexTable(n));
        }
      }
    }
    return out;
  }
}
