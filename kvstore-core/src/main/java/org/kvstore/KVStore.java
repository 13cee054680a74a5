package org.kvstore;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.kvstore.internal.EngineRegistry;
import org.kvstore.internal.StoreCatalog;
import org.kvstore.internal.StoreServices;
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
  private final StoreServices services;
  private final StoreCatalog catalog;
  private volatile boolean closed;

  /** Opens (creating it if needed) the store in {@code dir} with {@link StoreOptions#defaults()}. */
  public KVStore(File dir) {
    this(dir.toPath(), StoreOptions.defaults());
  }

  /**
   * Opens (creating it if needed) the store in {@code dir}: loads the catalog, opens every table and
   * replays the write-ahead log above each table's persisted state.
   *
   * @throws StoreLockedException if another process (or store) has the directory open
   * @throws CorruptionException if the catalog, a table or the log is damaged beyond what the
   *     recovery mode accepts; the message names the file and offset
   */
  public static KVStore open(Path dir, StoreOptions options) {
    return new KVStore(dir, options);
  }

  /**
   * Deletes the store in {@code dir} with every file in it, as RocksDB's {@code DestroyDB}: for
   * scratch stores a program made and no longer needs. Nothing happens when {@code dir} does not
   * exist. Holds the directory's lock while it deletes, so a store open in it is never deleted.
   *
   * @throws StoreLockedException if a store has the directory open
   * @throws InvalidArgumentException if {@code dir} is neither empty nor a store's directory (it has
   *     no lock file), so that a mistaken path does not lose files that are not the store's
   */
  public static void destroy(Path dir) {
    if (dir == null) {
      throw new InvalidArgumentException("directory", "must not be null");
    }
    Path d = dir.toAbsolutePath().normalize();
    FileSystem fs = StoreOptions.builder().build().fileSystem();
    Path lockFile = d.resolve(LOCK_FILE);
    try {
      if (!fs.exists(d)) {
        return;
      }
      if (!fs.exists(lockFile) && !fs.list(d).isEmpty()) {
        throw new InvalidArgumentException("directory", d + " is not a store's directory (no " + LOCK_FILE
            + " file) and not empty: not deleted");
      }
      try (Closeable lock = fs.tryLock(lockFile)) {
        if (lock == null) {
          throw new StoreLockedException(d);
        }
        fs.deleteRecursively(d);
      }
    } catch (IOException e) {
      throw new StorageIOException(d, "deleting the store", e);
    }
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
      this.services = StoreServices.open(fs, this.dir, options, engines);
      this.catalog = services.catalog();
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

  /**
   * The write side of a table created with the property {@code replicated=true}, whose writes come
   * from a replication log ({@link ReplicatedTable}).
   *
   * @throws InvalidArgumentException if the table is not replicated
   */
  public ReplicatedTable replicatedTable(String db, String table) {
    checkOpen();
    org.kvstore.internal.StoreTable t = catalog.table(db, table);
    if (!t.replicated()) {
      throw new InvalidArgumentException("table", t.qualifiedName()
          + " is not replicated (create it with the table property replicated=true)");
    }
    return t;
  }

  /**
   * Writes into {@code target} (which must not exist or be empty) a copy of replicated table
   * {@code db.table} that {@link #installReplicatedTable} takes, here or on another node: everything
   * applied is persisted, then the engine copies its persisted state, hard-linking its immutable
   * files. Returns the replication log index the copy holds. Call it between two
   * {@link ReplicatedTable#apply} calls (a Raft state machine's snapshot step), not during one.
   *
   * @throws InvalidArgumentException if the table is not replicated or {@code target} is not empty
   */
  public long backupReplicatedTable(String db, String table, Path target) {
    checkOpen();
    if (target == null) {
      throw new InvalidArgumentException("backup target", "must not be null");
    }
    return catalog.backupReplicated(db, table, target);
  }

  /**
   * Replaces the state of replicated table {@code db.table} with the copy in {@code source} (written
   * by {@link #backupReplicatedTable}): a replica that fell behind its replication log takes a
   * snapshot this way. Returns the table's new write side, whose {@link ReplicatedTable#persistedLsn}
   * is the copy's index; handles taken before fail from now on and must be looked up again. The
   * switch is atomic and durable (a crash leaves the old state or the new one); {@code source} is
   * not changed.
   *
   * @throws InvalidArgumentException if the table is not replicated
   * @throws StorageIOException if the copy cannot be read or opened (the old state stays)
   */
  public ReplicatedTable installReplicatedTable(String db, String table, Path source) {
    checkOpen();
    if (source == null) {
      throw new InvalidArgumentException("source", "must not be null");
    }
    return catalog.installReplicated(db, table, source);
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

  /** The entry of {@code key} with its version and expiry, or {@code null} (absent or expired). */
  public Entry getEntry(String db, String table, byte[] key) {
    return table(db, table).getEntry(key);
  }

  /** Puts with an expiry or a precondition ({@link Table#put(byte[], byte[], PutOptions)}). */
  public WriteResult put(String db, String table, byte[] key, byte[] value, PutOptions options) {
    return table(db, table).put(key, value, options);
  }

  /** Drops the expiry of {@code key}; returns false when absent or without expiry. */
  public boolean persist(String db, String table, byte[] key) {
    return table(db, table).persist(key);
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

  /**
   * Checkpoints now: every table persists its state, then log segments that no table needs are
   * deleted. Also runs in the background (see {@link StoreOptions#checkpointInterval()}).
   */
  public void checkpoint() {
    checkOpen();
    services.checkpoint();
  }

  /**
   * Writes an online, consistent copy of the store into {@code target} (which must not exist or be
   * empty) that opens as a store holding every write acknowledged before the call. Engines hard-link
   * their immutable files.
   */
  public void backup(Path target) {
    checkOpen();
    if (target == null) {
      throw new InvalidArgumentException("backup target", "must not be null");
    }
    services.backup(target);
  }

  /**
   * Removes the expired entries of every table now, a full round per table, through the logged
   * write path, and returns how many were removed. Also runs in the background in bounded passes
   * (see {@link StoreOptions#expiryInterval()}); reads never see an expired entry either way.
   */
  public long expireNow() {
    checkOpen();
    return services.expiry().runFullRounds();
  }

  /** Counters of the active expiry since open. */
  public ExpiryStats expiryStats() {
    checkOpen();
    return services.expiry().stats();
  }

  /**
   * What the write-ahead log and the checkpoints have done since the store opened: fsyncs and their
   * durations, bytes appended, group-commit batch sizes, checkpoints and their durations. Reading it
   * takes no lock the write path takes; the numbers are recorded once per fsync, log {@code write()}
   * and checkpoint, never per write.
   *
   * @throws StoreClosedException once the store is closed
   */
  public DurabilityStats durabilityStats() {
    checkOpen();
    return services.durabilityStats();
  }

  /** The latched storage failure that made the store read-only, or {@code null}. */
  public KVStoreException failure() {
    return services.pipeline().failure();
  }

  /**
   * Whether writes are refused because the disk is full, the last such error and the resumes so
   * far (docs/durability.md, "Disk full").
   */
  public DiskSpaceStatus diskSpace() {
    var s = services.space().status();
    return new DiskSpaceStatus(s.full(), s.lastError(), s.fullSinceMillis(), s.resumes(), s.lastResumeMillis(),
        s.outOfSpaceBySource());
  }

  private void checkOpen() {
    if (closed) {
      throw new StoreClosedException("store " + dir);
    }
  }

  /**
   * Checkpoints every durable table (unless the store failed), closes the tables and the log, and
   * releases the data directory. Idempotent.
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
    try {
      services.close();
    } catch (KVStoreException e) {
      error = e;
    }
    try {
      dirLock.close();
    } catch (IOException e) {
      StorageIOException unlock = new StorageIOException(dir.resolve(LOCK_FILE), "unlocking", e);
      if (error == null) {
        error = unlock;
      } else {
        error.addSuppressed(unlock);
      }
    }
    if (error != null) {
      throw error;
    }
    LOG.info("closed store {}", dir);
  }
}
