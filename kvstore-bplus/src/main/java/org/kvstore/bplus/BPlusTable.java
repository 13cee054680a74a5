package org.kvstore.bplus;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.CorruptionException;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.bplus.buffer.BufferPool;
import org.kvstore.bplus.buffer.PageFile;
import org.kvstore.bplus.page.MetaPage;
import org.kvstore.bplus.tree.BPlusTree;
import org.kvstore.bplus.tree.CheckpointGate;
import org.kvstore.io.FileSystem;
import org.kvstore.io.NoSpace;
import org.kvstore.io.StorageFile;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineStats;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.Mutation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table of the {@code bplus} engine: the page file, its buffer pool, the tree and the
 * checkpointer.
 *
 * <p>Errors: a failed mutation or checkpoint is latched (the tree may be half changed, or a sync
 * may have failed): later writes and checkpoints fail with it, reads keep working, and reopening
 * the store recovers from the last checkpoint plus the WAL. A checkpoint that failed for lack of
 * disk space is not latched ({@link PageFileCheckpointer}): the store retries it. A mutation that
 * fails for lack of space (a dirty page evicted to a new slot when the file cannot grow) is, as the
 * tree may be half changed; a buffer pool that holds the dirty pages between checkpoints avoids it.
 *
 * <p>Thread safety: thread-safe. Mutations hold the {@link CheckpointGate} shared; readers take
 * only page latches.
 */
public final class BPlusTable implements EngineTable {
  private static final Logger LOG = LoggerFactory.getLogger(BPlusTable.class);

  static final String FILE_NAME = "bplus.db";
  static final String TEMP_NAME = "bplus.db.tmp";

  private final EngineContext context;
  private final PageFile file;
  private final BufferPool pool;
  private final BPlusTree tree;
  private final CheckpointGate gate;
  private final PageFileCheckpointer checkpointer;
  private volatile Throwable failure;
  private volatile boolean closed;

  private BPlusTable(
      EngineContext context, PageFile file, BufferPool pool, BPlusTree tree, CheckpointGate gate,
      MetaPage meta) {
    this.context = context;
    this.file = file;
    this.pool = pool;
    this.tree = tree;
    this.gate = gate;
    this.checkpointer = new PageFileCheckpointer(file, pool, tree, gate, context.appliedLsn(), meta);
  }

  /** Opens the table in {@code context.directory()}, creating its file when missing. */
  static BPlusTable open(EngineContext context) throws IOException {
    BPlusOptions options = BPlusOptions.from(context.properties());
    FileSystem fs = context.fileSystem();
    Path dir = context.directory();
    Path path = dir.resolve(FILE_NAME);
    if (!fs.exists(path)) {
      create(fs, dir, options, context.clock());
    }
    StorageFile f = fs.open(path, FileSystem.OpenMode.READ_WRITE);
    try {
      PageFile.Opened opened = PageFile.open(f, options.pageSizeBytes());
      CheckpointGate gate = new CheckpointGate();
      BufferPool pool =
          new BufferPool(opened.file(), options.bufferBytes(), options.cleanupThreshold(), gate);
      MetaPage meta = opened.meta();
      if (meta.rootPageId() != BPlusTree.ROOT_ID) {
        throw new CorruptionException(path, meta.slot() * options.pageSizeBytes(),
            "meta page names root " + meta.rootPageId() + ", expected " + BPlusTree.ROOT_ID);
      }
      BPlusTree tree =
          BPlusTree.open(pool, meta.entryCount(), meta.nextChainId(), context.clock());
      LOG.debug("opened {} at checkpoint {} (lsn {}, {} entries)", context.tableName(),
          meta.checkpointSeq(), meta.checkpointLsn(), meta.entryCount());
      return new BPlusTable(context, opened.file(), pool, tree, gate, meta);
    } catch (IOException | RuntimeException e) {
      f.close();
      throw e;
    }
  }

  /** Writes an empty tree's first checkpoint to a temporary file and renames it into place. */
  private static void create(FileSystem fs, Path dir, BPlusOptions options, java.time.Clock clock)
      throws IOException {
    Path tmp = dir.resolve(TEMP_NAME);
    fs.delete(tmp);
    StorageFile f = fs.open(tmp, FileSystem.OpenMode.CREATE_NEW);
    try (f) {
      PageFile pf = PageFile.create(f, options.pageSizeBytes());
      CheckpointGate gate = new CheckpointGate();
      BufferPool pool = new BufferPool(pf, 8L * options.pageSizeBytes(), 1.0, gate);
      BPlusTree tree = BPlusTree.create(pool, clock);
      MetaPage none = new MetaPage(options.pageSizeBytes(), 0, 0, BPlusTree.ROOT_ID, 1, 0, 1, 0, 1);
      new PageFileCheckpointer(pf, pool, tree, gate, () -> 0, none).checkpoint();
    }
    fs.rename(tmp, dir.resolve(FILE_NAME));
    fs.syncDirectory(dir);
  }

  @Override
  public Cursor newCursorIncludingExpired(byte[] fromInclusive, byte[] toExclusive) {
    return tree.newCursorIncludingExpired(fromInclusive, toExclusive);
  }

  @Override
  public Entry getEntry(byte[] key) throws IOException {
    return tree.getEntry(key);
  }

  @Override
  public byte[] get(byte[] key) throws IOException {
    return tree.get(key);
  }

  @Override
  public void put(byte[] key, byte[] value, long expiresAt, long lsn) throws IOException {
    write(BPlusTree::put, key, value, expiresAt, lsn);
  }

  @Override
  public void remove(byte[] key, long lsn) throws IOException {
    write((t, k, unused, unusedExpiry, unusedLsn) -> t.remove(k), key, null, 0, lsn);
  }

  @Override
  public void apply(List<Mutation> batch, long lsn) throws IOException {
    write(BPlusTable::applyBatch, batch, null, 0, lsn);
  }

  private static void applyBatch(
      BPlusTree tree, List<Mutation> batch, Object unused, long unusedExpiry, long lsn)
      throws IOException {
    for (Mutation m : batch) {
      if (m.isRemove()) {
        tree.remove(m.key());
      } else {
        tree.put(m.key(), m.value(), m.expiresAt(), lsn);
      }
    }
  }

  /** One change of the tree by {@link #write}. */
  @FunctionalInterface
  private interface TreeChange<A, B> {
    void applyTo(BPlusTree tree, A a, B b, long expiresAt, long lsn) throws IOException;
  }

  /**
   * Makes {@code change} with {@code a}, {@code b}, {@code expiresAt} and {@code lsn} (the version
   * of the entries it writes) inside the checkpoint gate, and latches its failure: the tree may be
   * half changed, so later writes and checkpoints are refused. The changes are passed with their
   * arguments rather than as capturing lambdas, so that a write allocates nothing for them.
   */
  private <A, B> void write(TreeChange<A, B> change, A a, B b, long expiresAt, long lsn)
      throws IOException {
    enterWrite();
    try {
      change.applyTo(tree, a, b, expiresAt, lsn);
    } catch (IOException | RuntimeException | Error e) {
      failure = e;
      throw e;
    } finally {
      gate.exit();
    }
  }

  private void enterWrite() throws IOException {
    Throwable f = failure;
    if (f != null) {
      throw NoSpace.failedEarlier(
          "table " + context.tableName() + " refuses writes after an earlier failure: " + f, f);
    }
    gate.enter();
  }

  @Override
  public Cursor newCursor(byte[] fromInclusive, byte[] toExclusive) {
    return tree.newCursor(fromInclusive, toExclusive);
  }

  @Override
  public long flush() throws IOException {
    Throwable f = failure;
    if (f != null) {
      throw NoSpace.failedEarlier(
          "table " + context.tableName() + " cannot checkpoint after an earlier failure: " + f, f);
    }
    return checkpointer.checkpoint();
  }

  @Override
  public long persistedLsn() {
    return checkpointer.persistedLsn();
  }

  /**
   * The entry estimate is the tree's cell count: it no longer counts an expired entry once a write
   * to its leaf reclaimed it, and still counts expired entries no write has reached yet.
   */
  @Override
  public EngineStats stats() throws IOException {
    BufferPool.Stats s = pool.stats();
    Map<String, Long> d = new LinkedHashMap<>();
    d.put("pages", file.livePages());
    d.put("file.slots", file.fileSlots());
    d.put("tree.height", (long) tree.height());
    d.put("buffer.capacity.pages", (long) s.capacity());
    d.put("buffer.resident.pages", (long) s.resident());
    d.put("buffer.dirty.pages", (long) s.dirty());
    d.put("buffer.hit.rate.permille", s.hitRatePermille());
    d.put("buffer.hits", s.hits());
    d.put("buffer.misses", s.misses());
    d.put("buffer.evictions", s.evictions());
    d.put("buffer.writebacks", s.writeBacks());
    d.put("checkpoint.seq", checkpointer.checkpointSeq());
    d.put("checkpoint.lsn", checkpointer.persistedLsn());
    return new EngineStats(tree.entryCount(), file.sizeBytes(), d);
  }

  /**
   * Copies {@code bplus.db} into {@code targetDirectory}: the copy opens at this table's durable
   * checkpoint (the core copies the log above it).
   */
  @Override
  public void backup(Path targetDirectory) throws IOException {
    FileSystem fs = context.fileSystem();
    try (StorageFile target =
        fs.open(targetDirectory.resolve(FILE_NAME), FileSystem.OpenMode.CREATE_NEW)) {
      checkpointer.backup(target);
    }
    fs.syncDirectory(targetDirectory);
  }

  /** The tree, for invariant checks in tests. */
  public BPlusTree tree() {
    return tree;
  }

  /** The buffer pool, for tests. */
  public BufferPool pool() {
    return pool;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    file.close();
  }
}
