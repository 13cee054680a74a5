package org.kvstore.bplus;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
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
 * disk space is not latched ({@link PageFileCheckpointer}): the store retries it.
 *
 * <p>A full disk never fails a mutation half way (docs/decisions/0031-bplus-spare-slots.md): before
 * each put or remove changes the tree, the page file is given spare slots for every page the
 * buffer pool may have to write back meanwhile ({@link BufferPool#reserve}). When that fails for
 * lack of space, nothing changed: the mutation, and the rest of its batch, wait in {@code
 * unapplied}, and the write fails with an ENOSPC {@link IOException}. The core then tells the
 * client the outcome is unknown (the write is logged), refuses new writes, and retries through
 * {@link #retryAfterNoSpace}, which applies the waiting mutations in their order once the space is
 * there. Until then, mutations that reach the table queue behind them (a later write of the same
 * key must not overtake an earlier one), and a checkpoint is refused (it would persist an LSN above
 * them).
 *
 * <p>Thread safety: thread-safe. Mutations hold the {@link CheckpointGate} shared; readers take
 * only page latches. {@code unappliedLock} is taken before the gate, never while holding it.
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
  private final Object unappliedLock = new Object();
  /** Logged writes (or the rest of a batch) not applied for lack of space, oldest first. */
  @GuardedBy("unappliedLock")
  private final ArrayDeque<Unapplied> unapplied = new ArrayDeque<>();
  /** Whether {@code unapplied} is not empty (read without the lock by every mutation). */
  private volatile boolean waitingForSpace;
  /** The ENOSPC failure that made the oldest waiting mutation wait. */
  private volatile IOException spaceFailure;

  /** A logged write waiting for space: its mutations from {@code next} on, at {@code lsn}. */
  private static final class Unapplied {
    final List<Mutation> mutations;
    final long lsn;
    int next;

    Unapplied(List<Mutation> mutations, int next, long lsn) {
      this.mutations = mutations;
      this.next = next;
      this.lsn = lsn;
    }
  }

  private BPlusTable(
      EngineContext context, PageFile file, BufferPool pool, BPlusTree tree, CheckpointGate gate,
      MetaPage meta) {
    this.context = context;
    this.file = file;
    this.pool = pool;
    this.tree = tree;
    this.gate = gate;
    this.checkpointer = new PageFileCheckpointer(
        file, pool, tree, gate, context.appliedLsn(), this::unappliedError, meta);
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
      new PageFileCheckpointer(pf, pool, tree, gate, () -> 0, () -> null, none).checkpoint();
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
    if (waitingForSpace && waitBehind(List.of(Mutation.put(key, value, expiresAt)), lsn)) {
      throw waitingError();
    }
    IOException noSpace = applyOne(key, value, expiresAt, lsn);
    if (noSpace != null) {
      throw waitFor(noSpace, List.of(Mutation.put(key, value, expiresAt)), 0, lsn);
    }
  }

  @Override
  public void remove(byte[] key, long lsn) throws IOException {
    if (waitingForSpace && waitBehind(List.of(Mutation.remove(key)), lsn)) {
      throw waitingError();
    }
    IOException noSpace = applyOne(key, null, 0, lsn);
    if (noSpace != null) {
      throw waitFor(noSpace, List.of(Mutation.remove(key)), 0, lsn);
    }
  }

  @Override
  public void apply(List<Mutation> batch, long lsn) throws IOException {
    if (waitingForSpace && waitBehind(batch, lsn)) {
      throw waitingError();
    }
    for (int i = 0; i < batch.size(); i++) {
      Mutation m = batch.get(i);
      IOException noSpace = applyOne(m.key(), m.value(), m.expiresAt(), lsn);
      if (noSpace != null) {
        throw waitFor(noSpace, batch, i, lsn);
      }
    }
  }

  /**
   * Puts ({@code value} not null) or removes {@code key} inside the checkpoint gate, after
   * reserving spare slots for the pages it may dirty. Returns the ENOSPC failure of the
   * reservation (nothing changed then), or null once applied. Any other failure is latched: the
   * tree may be half changed, so later writes and checkpoints are refused.
   */
  private IOException applyOne(byte[] key, byte[] value, long expiresAt, long lsn)
      throws IOException {
    enterWrite();
    try {
      int pages = value == null
          ? BPlusTree.PAGES_DIRTIED_BY_REMOVE
          : tree.pagesDirtiedByPutAtMost(key.length, value.length);
      try {
        pool.reserve(pages);
      } catch (IOException e) {
        if (NoSpace.causedBy(e)) {
          return e;
        }
        failure = e;
        throw e;
      }
      try {
        if (value == null) {
          tree.remove(key);
        } else {
          tree.put(key, value, expiresAt, lsn);
        }
      } finally {
        pool.release(pages);
      }
      return null;
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

  /**
   * Queues {@code mutations} (logged at {@code lsn}) behind the writes waiting for space, if any
   * are; returns whether it did.
   */
  private boolean waitBehind(List<Mutation> mutations, long lsn) {
    synchronized (unappliedLock) {
      if (unapplied.isEmpty()) {
        return false;
      }
      unapplied.addLast(new Unapplied(List.copyOf(mutations), 0, lsn)); // the caller's list may be reused
      return true;
    }
  }

  /** Queues {@code mutations} from {@code next} on to wait for space; returns the write's error. */
  private IOException waitFor(IOException noSpace, List<Mutation> mutations, int next, long lsn) {
    synchronized (unappliedLock) {
      if (unapplied.isEmpty()) {
        spaceFailure = noSpace;
      }
      unapplied.addLast(new Unapplied(List.copyOf(mutations.subList(next, mutations.size())), 0, lsn));
      waitingForSpace = true;
    }
    LOG.warn("{}: no disk space for the pages a write may change; it waits, and writes are applied"
        + " again once space is freed: {}", context.tableName(), noSpace.toString());
    return waitingError();
  }

  private IOException waitingError() {
    IOException cause = spaceFailure;
    return new IOException(
        "a logged write waits for disk space to be applied (" + NoSpace.MESSAGE + ")", cause);
  }

  /** The error a checkpoint fails with while logged writes wait for space, or null. */
  private IOException unappliedError() {
    return waitingForSpace ? waitingError() : null;
  }

  /**
   * Applies the writes waiting for space, oldest first; returns when none waits.
   *
   * @throws IOException when the space is still missing (those not applied keep waiting)
   */
  private void applyUnapplied() throws IOException {
    if (!waitingForSpace) {
      return;
    }
    synchronized (unappliedLock) {
      while (!unapplied.isEmpty()) {
        Unapplied u = unapplied.peekFirst();
        while (u.next < u.mutations.size()) {
          Mutation m = u.mutations.get(u.next);
          IOException noSpace = applyOne(m.key(), m.value(), m.expiresAt(), u.lsn);
          if (noSpace != null) {
            spaceFailure = noSpace;
            throw waitingError();
          }
          u.next++;
        }
        unapplied.pollFirst();
      }
      waitingForSpace = false;
      spaceFailure = null;
    }
    LOG.info("{}: the writes that waited for disk space are applied", context.tableName());
  }

  /** Applies the writes that waited for space (the store retries until this returns). */
  @Override
  public void retryAfterNoSpace() throws IOException {
    applyUnappliedUnlessFailed("refuses writes");
  }

  /** Applies the writes that wait for space, unless a failure is latched ("table ... what ..."). */
  private void applyUnappliedUnlessFailed(String what) throws IOException {
    Throwable f = failure;
    if (f != null) {
      throw NoSpace.failedEarlier("table " + context.tableName() + " " + what + " after an earlier failure: " + f, f);
    }
    applyUnapplied();
  }

  @Override
  public Cursor newCursor(byte[] fromInclusive, byte[] toExclusive) {
    return tree.newCursor(fromInclusive, toExclusive);
  }

  @Override
  public long flush() throws IOException {
    applyUnappliedUnlessFailed("cannot checkpoint");
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
