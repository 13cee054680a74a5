package org.kvstore;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.kvstore.internal.CommitLog;
import org.kvstore.internal.EngineRegistry;
import org.kvstore.internal.StoreCatalog;
import org.kvstore.internal.StoreTable;
import org.kvstore.internal.WritePipeline;
import org.kvstore.io.FileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded key-value store: databases hold tables, each table is an ordered map from binary keys
 * to binary values kept by a pluggable engine ({@code lsm}, {@code bplus}, {@code memory}).
 *
 * <pre>{@code
 * try (KVStore store = KVStore.open(Path.of("data"), StoreOptions.defaults())) {
 *   store.createDB("app");
 *   store.createTable("app", "users", "lsm", new Properties());
 *   Table users = store.table("app", "users");
 *   users.put("alice", "admin".getBytes(UTF_8));
 * }
 * }</pre>
 *
 * <p>Layering: this facade validates and routes; {@code internal.StoreCatalog} keeps the databases and
 * tables; {@code internal.WritePipeline} logs and applies writes; engines implement
 * {@link org.kvstore.spi.TableEngine}; all storage I/O goes through {@link FileSystem}. See
 * docs/architecture.md.
 *
 * <p>Errors are {@link KVStoreException} subtypes; a missing key is {@code null}, not an error.
 *
 * <p>Thread safety: thread-safe. One data directory can be open by one store at a time (a lock file
 * guards it across processes).
 */
public final class KVStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KVStore.class);
  static final String LOCK_FILE = "LOCK";

  private final Path dir;
  private final StoreOptions options;
  private final EngineRegistry engines;
  private final Closeable dirLock;
  private final WritePipeline pipeline;
  private final StoreCatalog catalog;
  private volatile boolean closed;

  /** Opens (creating it if needed) the store in {@code dir} with {@link StoreOptions#defaults()}. */
  public KVStore(File dir) {
    this(dir.toPath(), StoreOptions.defaults());
  }

  /** Opens (creating it if needed) the store in {@code dir}. */
  public static KVStore open(Path dir, StoreOptions options) {
    return new KVStore(dir, options);
  }

  private KVStore(Path dir, StoreOptions options) {
    if (dir == null || options == null) {
      throw new InvalidArgumentException(dir == null ? "directory" : "options", "must not be null");
    }
    this.dir = dir.toAbsolutePath().normalize();
    this.options = options;
    this.engines = EngineRegistry.load();
    FileSystem fs = options.fileSystem();
    try {
      fs.createDirectories(this.dir);
    } catch (IOException e) {
      throw new StorageIOException(this.dir, "creating the data directory", e);
    }
    try {
      this.dirLock = fs.tryLock(this.dir.resolve(LOCK_FILE));
    } catch (IOException e) {
      throw new StorageIOException(this.dir.resolve(LOCK_FILE), "locking the data directory", e);
    }
    if (dirLock == null) {
      throw new StoreLockedException(this.dir);
    }
    try {
      this.pipeline = new WritePipeline(CommitLog.NONE, 0);
      this.catalog = new StoreCatalog(fs, this.dir, engines, options, pipeline);
      catalog.open();
      long lastLsn = 0;
      for (StoreTable t : catalog.tables()) {
        lastLsn = Math.max(lastLsn, t.engine().persistedLsn());
      }
      pipeline.advanceTo(lastLsn);
    } catch (IOException | RuntimeException e) {
      try {
        dirLock.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      if (e instanceof IOException io) {
        throw new StorageIOException("opening the store in " + this.dir, io);
      }
      throw (RuntimeException) e;
    }
    LOG.info("opened store {} (engines: {})", this.dir, engines.names());
  }

  /** The data directory. */
  public Path directory() {
    return dir;
  }

  public StoreOptions options() {
    return options;
  }

  /** Names of the engines available to {@link #createTable}. */
  public Set<String> engines() {
    return engines.nameSet();
  }

  // ---- catalog ----

  /** Creates an empty database. @throws AlreadyExistsException if it exists */
  public void createDB(String db) {
    checkOpen();
    catalog.createDatabase(db);
  }

  /** Drops a database and all its tables. @throws NoSuchDatabaseException if it does not exist */
  public void dropDB(String db) {
    checkOpen();
    catalog.dropDatabase(db);
  }

  /** Database names, sorted. */
  public List<String> listDBs() {
    checkOpen();
    return catalog.listDatabases();
  }

  /**
   * Creates a table of {@code engine} (case-insensitive) in {@code db}.
   *
   * @param properties the table's properties (the engine's, plus {@code durability} for durable
   *     engines); keys and values may be any objects, read with {@code toString()}
   * @throws InvalidArgumentException for a bad name, an unknown engine or a bad property, with the
   *     list of valid ones
   */
  public void createTable(String db, String table, String engine, Properties properties) {
    checkOpen();
    catalog.createTable(db, table, engine, properties);
  }

  /** Drops a table; its files are deleted once the drop is durable. */
  public void dropTable(String db, String table) {
    checkOpen();
    catalog.dropTable(db, table);
  }

  /** Table names of {@code db}, sorted. */
  public List<String> listTables(String db) {
    checkOpen();
    return catalog.listTables(db);
  }

  /** A table's engine, properties and statistics. */
  public TableInfo tableInfo(String db, String table) {
    return table(db, table).info();
  }

  /** A handle for the data operations of one table. */
  public Table table(String db, String table) {
    checkOpen();
    return catalog.table(db, table);
  }

  // ---- data ----

  public void put(String db, String table, byte[] key, byte[] value) {
    table(db, table).put(key, value);
  }

  public void put(String db, String table, String key, byte[] value) {
    table(db, table).put(key, value);
  }

  /** The value of {@code key}, or {@code null}. */
  public byte[] get(String db, String table, byte[] key) {
    return table(db, table).get(key);
  }

  public byte[] get(String db, String table, String key) {
    return table(db, table).get(key);
  }

  /** Removes {@code key}; returns whether it was present. */
  public boolean remove(String db, String table, byte[] key) {
    return table(db, table).remove(key);
  }

  public boolean remove(String db, String table, String key) {
    return table(db, table).remove(key);
  }

  /** Applies {@code batch} atomically. */
  public void write(String db, String table, WriteBatch batch) {
    table(db, table).write(batch);
  }

  /**
   * A cursor over {@code [fromInclusive, toExclusive)} ({@code null}: open end), at most {@code limit}
   * entries ({@code <= 0}: all). Close it.
   */
  public Cursor scan(String db, String table, byte[] fromInclusive, byte[] toExclusive, int limit) {
    return table(db, table).scan(fromInclusive, toExclusive, limit);
  }

  // ---- maintenance ----

  /** Persists every table's state (a checkpoint). */
  public void checkpoint() {
    checkOpen();
    for (StoreTable t : catalog.tables()) {
      t.flush();
    }
  }

  /** The latched storage failure that made the store read-only, or {@code null}. */
  public KVStoreException failure() {
    return pipeline.failure();
  }

  private void checkOpen() {
    if (closed) {
      throw new StoreClosedException("store " + dir);
    }
  }

  /**
   * Checkpoints every durable table (unless the store failed), closes the tables and releases the
   * data directory. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    KVStoreException error = null;
    if (pipeline.failure() == null) {
      for (StoreTable t : catalog.tables()) {
        try {
          t.flush();
        } catch (KVStoreException e) {
          error = collect(error, e);
        }
      }
    }
    try {
      catalog.closeAll("store closed");
    } catch (IOException e) {
      error = collect(error, new StorageIOException("closing tables of " + dir, e));
    }
    try {
      dirLock.close();
    } catch (IOException e) {
      error = collect(error, new StorageIOException(dir.resolve(LOCK_FILE), "unlocking", e));
    }
    if (error != null) {
      throw error;
    }
    LOG.info("closed store {}", dir);
  }

  private static KVStoreException collect(KVStoreException first, KVStoreException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }
}
