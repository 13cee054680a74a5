package org.kvstore.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.kvstore.AlreadyExistsException;
import org.kvstore.Durability;
import org.kvstore.KVStoreException;
import org.kvstore.NoSuchDatabaseException;
import org.kvstore.NoSuchTableException;
import org.kvstore.StorageIOException;
import org.kvstore.StoreOptions;
import org.kvstore.catalog.CatalogFile;
import org.kvstore.catalog.CatalogState;
import org.kvstore.catalog.TableDescriptor;
import org.kvstore.io.FileSystem;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.SpaceListener;
import org.kvstore.spi.PropertySpec;
import org.kvstore.spi.TableEngine;
import org.kvstore.spi.TableProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The databases and tables of a store: the durable catalog and the open tables it describes.
 *
 * <p>Catalog changes (create and drop) are serialized by {@code ddlLock} and made durable (atomic
 * replace of the catalog file) before they take effect; a dropped table's files are deleted only
 * after that. Table directories not named by the catalog (left by a crash between creating a table's
 * files and recording it, or between recording a drop and deleting the files) are removed on open.
 *
 * <p>Thread safety: thread-safe. {@code ddlLock} guards {@code state} and serializes changes; name
 * lookups read the concurrent {@code open} map without locking.
 */
public final class StoreCatalog {
  private static final Logger LOG = LoggerFactory.getLogger(StoreCatalog.class);
  static final String TABLES_DIR = "tables";

  private final FileSystem fs;
  private final Path dataDir;
  private final CatalogFile file;
  private final EngineRegistry engines;
  private final StoreOptions options;
  private final WritePipeline pipeline;
  private final PropertySpec<Durability> durabilitySpec;
  private final PropertySpec<Boolean> replicatedSpec =
      PropertySpec.ofBoolean("replicated", false,
          "written only through a replication log (org.kvstore.ReplicatedTable), never logged here");

  private final ReentrantLock ddlLock = new ReentrantLock();
  @GuardedBy("ddlLock")
  private CatalogState state = CatalogState.empty();
  /** db -> table -> open table; changed under ddlLock, read lock-free. */
  private final Map<String, Map<String, StoreTable>> open = new ConcurrentHashMap<>();

  public StoreCatalog(
      FileSystem fs, Path dataDir, EngineRegistry engines, StoreOptions options, WritePipeline pipeline) {
    this.fs = fs;
    this.dataDir = dataDir;
    this.file = new CatalogFile(fs, dataDir);
    this.engines = engines;
    this.options = options;
    this.pipeline = pipeline;
    this.durabilitySpec =
        PropertySpec.ofEnum(
            "durability", Durability.class, options.durability(),
            "when writes are acknowledged: sync (after fsync), periodic or none");
  }

  /** Loads the catalog, removes orphaned table directories, and opens every table. */
  public void open() throws IOException {
    ddlLock.lock();
    try {
      state = file.load();
      Path tablesDir = dataDir.resolve(TABLES_DIR);
      fs.createDirectories(tablesDir);
      java.util.Set<String> live = new java.util.HashSet<>();
      for (TableDescriptor t : state.allTables()) {
        live.add(Long.toString(t.id()));
      }
      for (String name : fs.list(tablesDir)) {
        if (!live.contains(name)) {
          LOG.info("removing {} (a table directory the catalog does not name)", tablesDir.resolve(name));
          fs.deleteRecursively(tablesDir.resolve(name));
        }
      }
      for (String db : state.databases().keySet()) {
        open.put(db, new ConcurrentHashMap<>());
      }
      for (TableDescriptor t : state.allTables()) {
        StoreTable table = openTable(t);
        open.get(t.database()).put(t.name(), table);
      }
    } finally {
      ddlLock.unlock();
    }
  }

  /** The core's own table properties, before the engine's. */
  private List<PropertySpec<?>> specsFor(TableEngine engine) {
    List<PropertySpec<?>> specs = new ArrayList<>();
    if (engine.durable()) {
      specs.add(durabilitySpec);
      specs.add(replicatedSpec);
    }
    specs.addAll(engine.properties());
    return specs;
  }

  private StoreTable openTable(TableDescriptor t) throws IOException {
    if (!engines.has(t.engine())) {
      throw new KVStoreException(
          "table " + t.qualifiedName() + " uses engine '" + t.engine()
              + "', which is not on the class path (available engines: " + engines.names() + ")");
    }
    TableEngine engine = engines.get(t.engine());
    List<PropertySpec<?>> specs = specsFor(engine);
    TableProperties props = TableProperties.parse(engine.name(), specs, t.properties());
    Path dir = tableDir(t.id());
    fs.createDirectories(dir);
    boolean replicated = engine.durable() && props.get(replicatedSpec);
    // A replicated table's persisted LSN is an index of its own replication log, not a store LSN.
    StoreTable[] opened = new StoreTable[1];
    EngineTable[] openedEngine = new EngineTable[1];
    java.util.function.LongSupplier appliedLsn =
        replicated ? () -> opened[0].replicatedAppliedLsn() : pipeline::persistableLsn;
    String source = "table " + t.qualifiedName();
    SpaceListener onNoSpace = cause -> pipeline.space().enter(source, dir, cause, () -> {
      if (openedEngine[0] != null) {
        openedEngine[0].retryAfterNoSpace();
      }
    });
    EngineTable et =
        engine.open(new EngineContext(dir, fs, props, t.qualifiedName(), appliedLsn,
            options.blockCacheBytes(), options.writeBufferBytes(), options.clock(), onNoSpace));
    openedEngine[0] = et;
    Durability durability = engine.durable() ? props.get(durabilitySpec) : null;
    Map<String, String> effective = props.effective(specs);
    if (!replicated) {
      effective.remove(replicatedSpec.name()); // shown only where it is set
    }
    opened[0] = new StoreTable(
        t, et, engine.durable(), durability, effective, dir, pipeline,
        new StoreTable.Limits(options.maxKeyBytes(), options.maxValueBytes()), options.clock(),
        replicated);
    if (replicated) {
      opened[0].startReplicated();
    }
    return opened[0];
  }

  private Path tableDir(long id) {
    return dataDir.resolve(TABLES_DIR).resolve(Long.toString(id));
  }

  public void createDatabase(String db) {
    Names.checkDatabase(db);
    ddlLock.lock();
    try {
      if (state.hasDatabase(db)) {
        throw AlreadyExistsException.database(db);
      }
      CatalogState next = state.withDatabase(db);
      storeCatalog(next);
      state = next;
      open.put(db, new ConcurrentHashMap<>());
    } finally {
      ddlLock.unlock();
    }
  }

  /** Drops the database and every table in it. */
  public void dropDatabase(String db) {
    Names.checkDatabase(db);
    ddlLock.lock();
    try {
      if (!state.hasDatabase(db)) {
        throw new NoSuchDatabaseException(db);
      }
      CatalogState next = state.withoutDatabase(db);
      storeCatalog(next);
      state = next;
      Map<String, StoreTable> tables = open.remove(db);
      for (StoreTable t : tables.values()) {
        discard(t);
      }
    } finally {
      ddlLock.unlock();
    }
  }

  public List<String> listDatabases() {
    ddlLock.lock();
    try {
      return List.copyOf(state.databases().keySet());
    } finally {
      ddlLock.unlock();
    }
  }

  public StoreTable createTable(String db, String table, String engineName, Properties properties) {
    Names.checkDatabase(db);
    Names.checkTable(table);
    TableEngine engine = engines.get(engineName);
    // Validate before touching anything: a bad property fails with the list of valid ones.
    TableProperties props =
        TableProperties.parse(engine.name(), specsFor(engine), properties == null ? new Properties() : properties);
    ddlLock.lock();
    try {
      if (!state.hasDatabase(db)) {
        throw new NoSuchDatabaseException(db);
      }
      if (state.table(db, table) != null) {
        throw AlreadyExistsException.table(db, table);
      }
      TableDescriptor t =
          new TableDescriptor(state.nextTableId(), db, table, engine.name(), props.given());
      StoreTable opened;
      try {
        // Files first, catalog second: a crash in between leaves an orphan directory, removed on open.
        fs.deleteRecursively(tableDir(t.id()));
        opened = openTable(t);
        if (opened.durable()) {
          opened.engine().flush(); // an empty persisted state at the current LSN
        }
      } catch (IOException e) {
        throw new StorageIOException(tableDir(t.id()), "creating table " + t.qualifiedName(), e);
      }
      CatalogState next = state.withTable(t);
      try {
        storeCatalog(next);
      } catch (KVStoreException e) {
        try {
          opened.close("creation failed");
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      state = next;
      open.get(db).put(table, opened);
      return opened;
    } finally {
      ddlLock.unlock();
    }
  }

  public void dropTable(String db, String table) {
    Names.checkDatabase(db);
    Names.checkTable(table);
    ddlLock.lock();
    try {
      if (!state.hasDatabase(db)) {
        throw new NoSuchDatabaseException(db);
      }
      if (state.table(db, table) == null) {
        throw new NoSuchTableException(db, table);
      }
      CatalogState next = state.withoutTable(db, table);
      storeCatalog(next); // the drop is durable before any file goes
      state = next;
      StoreTable t = open.get(db).remove(table);
      discard(t);
    } finally {
      ddlLock.unlock();
    }
  }

  /** Closes a dropped table and deletes its files. REQUIRES: ddlLock; the drop is durable. */
  private void discard(StoreTable t) {
    try {
      t.close(StoreTable.DROPPED);
      fs.deleteRecursively(tableDir(t.id()));
    } catch (IOException e) {
      // The drop is durable; the leftover directory is an orphan and is removed on the next open.
      LOG.warn("table {} is dropped but deleting {} failed: {}", t.qualifiedName(), tableDir(t.id()), e.toString());
    }
  }

  /**
   * Writes into {@code target} (which must not exist or be empty) a copy of the replicated table's
   * state that {@link #installReplicated} takes: everything applied is persisted first, then the
   * engine copies its persisted state (immutable files hard-linked). Returns the index the copy
   * holds. REQUIRES: no concurrent {@link StoreTable#apply} (the replication log's apply thread
   * calls it between entries).
   */
  public long backupReplicated(String db, String table, Path target) {
    StoreTable t = replicated(db, table);
    try {
      if (fs.exists(target) && !fs.list(target).isEmpty()) {
        throw new org.kvstore.InvalidArgumentException("backup target", target + " exists and is not empty");
      }
      fs.createDirectories(target);
      long lsn = t.checkpoint();
      t.backupPersistedState(target);
      fs.syncDirectory(target);
      return lsn;
    } catch (IOException e) {
      throw new StorageIOException(target, "copying replicated table " + t.qualifiedName(), e);
    }
  }

  /**
   * Replaces the replicated table's state with the copy in {@code source} (written by
   * {@link #backupReplicated}, possibly on another node) and returns the table opened on it; the
   * old handle is closed ({@link StoreTable#REPLACED}). The files are copied under a new table id
   * and the catalog switches to it in one atomic replace: a crash before leaves the old table (and
   * an orphan directory, removed on open), after it the new one; {@code source} is left as it was.
   *
   * @throws StorageIOException if copying or opening the copy fails (the old table stays)
   */
  public StoreTable installReplicated(String db, String table, Path source) {
    ddlLock.lock();
    try {
      StoreTable old = replicated(db, table);
      TableDescriptor d = old.descriptor();
      TableDescriptor t = new TableDescriptor(state.nextTableId(), db, table, d.engine(), d.properties());
      Path dir = tableDir(t.id());
      StoreTable opened;
      try {
        if (!fs.exists(source) || fs.list(source).isEmpty()) {
          throw new IOException(source + " does not exist or holds no files (not a copy of a table)");
        }
        fs.deleteRecursively(dir);
        fs.createDirectories(dir);
        for (String name : fs.list(source)) {
          BackupWriter.copyPrefix(fs, source.resolve(name), dir.resolve(name), fs.size(source.resolve(name)));
        }
        fs.syncDirectory(dir);
        fs.syncDirectory(dir.getParent());
        opened = openTable(t);
      } catch (IOException | RuntimeException e) {
        discardDirectory(dir, e);
        if (e instanceof KVStoreException k) {
          throw k;
        }
        throw new StorageIOException(source, "installing a copy of replicated table " + d.qualifiedName()
            + " (into " + dir + ")", e instanceof IOException io ? io : new IOException(e));
      }
      CatalogState next = state.withTable(t);
      try {
        storeCatalog(next);
      } catch (KVStoreException e) {
        try {
          opened.close("installation failed");
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        discardDirectory(dir, e);
        throw e;
      }
      state = next;
      open.get(db).put(table, opened);
      LOG.info("table {}: installed a copy from {} (index {}; replaces table id {})", t.qualifiedName(), source,
          opened.persistedLsn(), d.id());
      try {
        old.close(StoreTable.REPLACED);
        fs.deleteRecursively(tableDir(old.id()));
      } catch (IOException e) {
        // The catalog names the new table; the old directory is an orphan, removed on the next open.
        LOG.warn("table {} was replaced but deleting {} failed: {}", t.qualifiedName(), tableDir(old.id()), e.toString());
      }
      return opened;
    } finally {
      ddlLock.unlock();
    }
  }

  private StoreTable replicated(String db, String table) {
    StoreTable t = table(db, table);
    if (!t.replicated()) {
      throw new org.kvstore.InvalidArgumentException("table", t.qualifiedName()
          + " is not replicated (create it with the table property replicated=true)");
    }
    return t;
  }

  private void discardDirectory(Path dir, Exception cause) {
    try {
      fs.deleteRecursively(dir);
    } catch (IOException e) {
      cause.addSuppressed(e); // an orphan directory, removed on the next open
    }
  }

  public List<String> listTables(String db) {
    Names.checkDatabase(db);
    ddlLock.lock();
    try {
      var tables = state.databases().get(db);
      if (tables == null) {
        throw new NoSuchDatabaseException(db);
      }
      return List.copyOf(tables.keySet());
    } finally {
      ddlLock.unlock();
    }
  }

  /** The open table; throws when the database or table does not exist. */
  public StoreTable table(String db, String table) {
    Map<String, StoreTable> tables = open.get(db);
    if (tables == null) {
      Names.checkDatabase(db);
      throw new NoSuchDatabaseException(db);
    }
    StoreTable t = tables.get(table);
    if (t == null) {
      Names.checkTable(table);
      throw new NoSuchTableException(db, table);
    }
    return t;
  }

  /** The open table with this id, or {@code null}. */
  public StoreTable tableById(long id) {
    for (Map<String, StoreTable> tables : open.values()) {
      for (StoreTable t : tables.values()) {
        if (t.id() == id) {
          return t;
        }
      }
    }
    return null;
  }

  /** Every open table. */
  public Collection<StoreTable> tables() {
    List<StoreTable> out = new ArrayList<>();
    open.values().forEach(m -> out.addAll(m.values()));
    return out;
  }

  /** Closes every table (without flushing; the store flushes first on a clean close). */
  public void closeAll(String reason) throws IOException {
    ddlLock.lock();
    try {
      IOException first = null;
      for (StoreTable t : tables()) {
        try {
          t.close(reason);
        } catch (IOException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      open.clear();
      if (first != null) {
        throw first;
      }
    } finally {
      ddlLock.unlock();
    }
  }

  /** The current catalog. */
  public CatalogState state() {
    ddlLock.lock();
    try {
      return state;
    } finally {
      ddlLock.unlock();
    }
  }

  public Path catalogPath() {
    return file.path();
  }

  private void storeCatalog(CatalogState next) {
    pipeline.checkWritable();
    try {
      file.store(next);
    } catch (IOException e) {
      throw new StorageIOException(file.path(), "writing the catalog", e);
    }
  }
}
