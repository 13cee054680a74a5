package org.kvstore.lsm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;
import org.kvstore.Cursor;
import org.kvstore.io.FileSystem;
import org.kvstore.lsm.bloom.BloomFormat;
import org.kvstore.lsm.cursor.InternalCursor;
import org.kvstore.lsm.cursor.LevelCursor;
import org.kvstore.lsm.cursor.MergingCursor;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.lsm.memtable.MemTable;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.sstable.SstableFormat;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.ManifestFormat;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionSet;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineStats;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.Mutation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table of the LSM engine.
 *
 * <h2>Design</h2>
 *
 * <pre>
 *   put/remove/apply ──► memtable (skip list) ──full──► immutable memtables ──flush thread──► L0
 *                                                                   compaction thread: L0 → L1 → … Ln
 *   get:  memtable → immutables (newest first) → L0 files (newest first) → one file per level
 *   scan: merge of all of these, filtered to one snapshot sequence number
 * </pre>
 *
 * <ul>
 *   <li><b>Sequence numbers.</b> Every mutation gets a table-local sequence number from
 *       {@code lastSeq}; a batch of n mutations takes n consecutive numbers in batch order, so a
 *       later mutation of the same key in a batch wins. Sequence numbers are independent of the
 *       core's LSNs (which may repeat across a replay); they persist through the SSTables and the
 *       manifest and only grow.
 *   <li><b>Visibility.</b> Writers allocate their numbers and insert under the <em>shared</em> mode
 *       of {@code writeFence}. A scan takes the fence in <em>exclusive</em> mode for an instant:
 *       then no insert is half done, so every number up to {@code lastSeq} is complete; that value
 *       is the scan's snapshot, and entries above it are filtered out. A scan thus never sees half
 *       of a batch and sees one point in time. Point reads need no snapshot (a single key).
 *   <li><b>Persistence protocol</b> (see {@link EngineTable}). A memtable switch also takes the
 *       fence exclusively and reads {@link EngineContext#appliedLsn()} under it: every mutation at or
 *       below that LSN has returned from its apply call and so sits in the memtable being frozen
 *       (or older state). The flush thread writes the frozen memtables oldest first and logs each
 *       with that LSN as the persisted LSN, so {@link #persistedLsn()} only grows and is always
 *       covered by the durable SSTables. Replayed mutations simply get new sequence numbers; puts
 *       and removes are idempotent.
 *   <li><b>Old versions.</b> An open cursor registers its snapshot in {@link OpenSnapshots} (under
 *       the fence, with the snapshot) until closed; writers pass the oldest one to the memtable,
 *       which drops the versions of the written key no open cursor can see. With no cursor open an
 *       overwritten key keeps one version in the memtable.
 *   <li><b>Read views.</b> {@link SuperVersion} bundles memtable, immutables and the SSTable
 *       {@link Version}; it is replaced (under {@code svLock}) at each switch, flush and compaction.
 *       Readers pin its version; cursors keep the pin until closed, so the files they read are
 *       never deleted under them, and they keep the memtable objects they started with.
 *   <li><b>Back pressure.</b> Writers stall (logged) while the memtable is full and
 *       {@code max.immutable.memtables} immutables wait, while level 0 has
 *       {@code level0.stop.writes.trigger} files, or while the memtables of all the store's lsm
 *       tables hold its {@link WriteBufferBudget}, which also switches the largest memtable early.
 *   <li><b>Errors.</b> A failed flush or compaction is latched: every later write and flush fails
 *       with it as the cause; reads go on. Reopening the table recovers from the manifest and the
 *       core's log.
 * </ul>
 *
 * <p>Lock order: {@code writeFence} before {@code svLock} before the {@link VersionSet}'s lock;
 * {@code roomLock} is never held while taking another. No file I/O happens under
 * {@code writeFence} or {@code svLock}.
 *
 * <p>Thread safety: thread-safe; readers never block readers.
 */
final class LsmTable implements EngineTable {
  private static final Logger LOG = LoggerFactory.getLogger(LsmTable.class);

  private final EngineContext ctx;
  private final LsmOptions opt;
  private final FileSystem fs;
  private final Path dir;
  private final BlockCache cache;
  private final WriteBufferBudget budget;
  private final OpenFiles files;
  private VersionSet versions;
  private final StampedLock writeFence = new StampedLock();
  private final Object svLock = new Object();
  private volatile SuperVersion sv;
  /** Point reads' per-thread pins on the current version (instead of its shared count). */
  private final ReadPins pins = new ReadPins();
  private final AtomicLong lastSeq = new AtomicLong();
  private final OpenSnapshots snapshots = new OpenSnapshots();
  private final ReentrantLock roomLock = new ReentrantLock();
  private final Condition roomChanged = roomLock.newCondition();
  private final LsmStatistics statistics = new LsmStatistics();
  private Background background;
  private volatile Throwable bgError;
  private volatile boolean closed;

  private LsmTable(EngineContext ctx, LsmOptions opt, BlockCache cache, WriteBufferBudget budget) {
    this.ctx = ctx;
    this.opt = opt;
    this.fs = ctx.fileSystem();
    this.dir = ctx.directory();
    this.cache = cache;
    this.budget = budget;
    this.files = new OpenFiles(fs, dir, opt.maxOpenFiles());
  }

  /**
   * Opens (or creates) the table in {@code ctx.directory()}, caching its blocks in {@code cache} (a
   * view of the store's shared cache or of one of its own), its memtables counted in
   * {@code budget} (the store's); closing the table empties the view and leaves the budget.
   */
  static LsmTable open(EngineContext ctx, LsmOptions opt, BlockCache cache, WriteBufferBudget budget)
      throws IOException {
    LsmTable t = new LsmTable(ctx, opt, cache, budget);
    t.fs.createDirectories(t.dir);
    t.versions = VersionSet.open(t.fs, t.dir, opt.numLevels(), t::deleteObsolete);
    try {
      t.sweepUnreferencedFiles();
      t.lastSeq.set(t.versions.lastSeqNum());
      t.sv = new SuperVersion(new MemTable(), List.of(), t.versions.acquireCurrent());
      t.versions.logState(ctx.tableName());
      t.background = new Background(t, ctx.tableName());
      t.background.maybeScheduleCompaction();
      budget.register(t);
    } catch (IOException | RuntimeException e) {
      t.versions.close();
      t.files.close();
      cache.evictAll();
      throw e;
    }
    return t;
  }

  /** Deletes files of this table no version references: leftovers of a crash or an earlier close. */
  private void sweepUnreferencedFiles() throws IOException {
    Version v = versions.current();
    java.util.Set<Long> live = new java.util.HashSet<>();
    for (int level = 0; level < v.levelCount(); level++) {
      for (FileMetadata f : v.files(level)) {
        live.add(f.fileNum());
      }
    }
    String manifest = ManifestFormat.manifestName(versions.manifestFileNum());
    for (String name : fs.list(dir)) {
      long num = SstableFormat.parseFileName(name);
      boolean stale =
          (num >= 0 && !live.contains(num))
              || (name.startsWith(ManifestFormat.MANIFEST_PREFIX) && !name.equals(manifest))
              || name.equals(ManifestFormat.CURRENT_TEMP);
      if (stale) {
        LOG.info("table {}: deleting unreferenced file {}", ctx.tableName(), name);
        fs.delete(dir.resolve(name));
      }
    }
  }

  /** Deletes SSTables no live version contains (called by whoever released the last pin). */
  private void deleteObsolete(List<FileMetadata> dead) {
    long[] nums = new long[dead.size()];
    for (int i = 0; i < nums.length; i++) {
      nums[i] = dead.get(i).fileNum();
    }
    cache.evictFiles(nums);
    for (FileMetadata f : dead) {
      files.forget(f);
      f.dropResident();
      files.evict(f.fileNum());
      try {
        fs.delete(dir.resolve(SstableFormat.fileName(f.fileNum())));
      } catch (IOException e) {
        // Not a data risk: the file is in no version; the sweep at the next open retries.
        LOG.warn("table {}: could not delete obsolete {}: {}", ctx.tableName(), f, e.toString());
      }
    }
  }

  // ---- writes ----

  @Override
  public void put(byte[] key, byte[] value, long lsn) throws IOException {
    makeRoomForWrite();
    MemTable mem;
    long size;
    long stamp = writeFence.readLock();
    try {
      mem = sv.mem();
      size = mem.add(key, lastSeq.incrementAndGet(), ValueKind.PUT, value, snapshots.oldest());
    } finally {
      writeFence.unlockRead(stamp);
    }
    statistics.userBytes.add(key.length + value.length);
    afterWrite(mem, size);
  }

  @Override
  public void remove(byte[] key, long lsn) throws IOException {
    makeRoomForWrite();
    MemTable mem;
    long size;
    long stamp = writeFence.readLock();
    try {
      mem = sv.mem();
      size = mem.add(key, lastSeq.incrementAndGet(), ValueKind.DELETE, null, snapshots.oldest());
    } finally {
      writeFence.unlockRead(stamp);
    }
    statistics.userBytes.add(key.length);
    afterWrite(mem, size);
  }

  @Override
  public void apply(List<Mutation> batch, long lsn) throws IOException {
    if (batch.isEmpty()) {
      return;
    }
    makeRoomForWrite();
    long size = 0;
    long bytes = 0;
    MemTable mem;
    long stamp = writeFence.readLock();
    try {
      mem = sv.mem();
      long oldest = snapshots.oldest();
      long seq = lastSeq.getAndAdd(batch.size()) + 1;
      for (Mutation m : batch) {
        if (m.isRemove()) {
          size = mem.add(m.key(), seq++, ValueKind.DELETE, null, oldest);
          bytes += m.key().length;
        } else {
          size = mem.add(m.key(), seq++, ValueKind.PUT, m.value(), oldest);
          bytes += m.key().length + m.value().length;
        }
      }
    } finally {
      writeFence.unlockRead(stamp);
    }
    statistics.userBytes.add(bytes);
    afterWrite(mem, size);
  }

  /**
   * After a write that left {@code mem} (the memtable it went to, which may no longer be the active
   * one) at {@code memBytes}: switches a full memtable, or reports a step of growth to the budget.
   * The report mark is the memtable's own, so a writer that finishes after a switch moves the old
   * memtable's mark, never the new one's.
   */
  private void afterWrite(MemTable mem, long memBytes) {
    if (memBytes >= opt.memtableBytes()) {
      switchMemtable(Switch.IF_FULL);
    } else if (budget.limitBytes() > 0 && mem.passedReportMark(memBytes, budget.checkStep())) {
      budget.grew();
    }
  }

  /**
   * Bytes of the memtables at one moment: the active one, and the ones waiting for their flush.
   * {@code view} is the super version they were read from: memory is freed only by installing a
   * new one, so while a table's view stays the same its memtables only grow.
   */
  record MemtableBytes(long active, long immutable, Object view) {
    long total() {
      return active + immutable;
    }
  }

  /** The memtables' bytes, both read from one view (a switch moves bytes from one to the other). */
  MemtableBytes memtableBytes() {
    SuperVersion s = sv;
    long imm = 0;
    for (FrozenMemTable f : s.imms()) {
      imm += f.mem().approximateBytes();
    }
    return new MemtableBytes(s.mem().approximateBytes(), imm, s);
  }

  /** Whether {@link Switch#IF_SLOT_FREE} would switch the memtable now. */
  boolean canSwitchMemtable() {
    SuperVersion s = sv;
    return !closed && !s.mem().isEmpty() && s.imms().size() < opt.maxImmutableMemtables();
  }

  /**
   * Waits while the write would exceed the memory or level-0 bounds; switches a full memtable when
   * an immutable slot is free.
   */
  private void makeRoomForWrite() throws IOException {
    boolean logged = false;
    long stallStart = 0;
    for (;;) {
      checkWritable();
      SuperVersion s = sv;
      boolean memFull = s.mem().approximateBytes() >= opt.memtableBytes();
      int l0 = s.version().files(0).size();
      // The budget is re-evaluated by a waiting writer too, in case the flush that ended it raced
      // with another evaluation.
      boolean budgetFull = budget.full() && budget.reevaluate();
      if (!memFull && l0 < opt.level0StopWritesTrigger() && !budgetFull) {
        break;
      }
      if (memFull && s.imms().size() < opt.maxImmutableMemtables() && l0 < opt.level0StopWritesTrigger()) {
        switchMemtable(Switch.IF_FULL);
        continue;
      }
      if (!logged) {
        logged = true;
        stallStart = System.nanoTime();
        statistics.stalls.increment();
        String why =
            l0 >= opt.level0StopWritesTrigger()
                ? l0 + " level-0 files (level0.stop.writes.trigger " + opt.level0StopWritesTrigger() + ")"
                : memFull
                    ? s.imms().size() + " immutable memtables wait for their flush (max.immutable.memtables "
                        + opt.maxImmutableMemtables() + ")"
                    : "the memtables of all lsm tables hold the store's write buffer budget ("
                        + budget.limitBytes() + " bytes) until flushes free some";
        LOG.info("table {}: writes stall: {}", ctx.tableName(), why);
      }
      roomLock.lock();
      try {
        if (sv == s && bgError == null && !closed) {
          roomChanged.await(50, TimeUnit.MILLISECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while writes stall", e);
      } finally {
        roomLock.unlock();
      }
    }
    if (logged) {
      statistics.stallNanos.add(System.nanoTime() - stallStart);
    }
  }

  void signalRoom() {
    roomLock.lock();
    try {
      roomChanged.signalAll();
    } finally {
      roomLock.unlock();
    }
  }

  private void checkWritable() throws IOException {
    if (closed) {
      throw new IOException("table " + ctx.tableName() + " is closed");
    }
    Throwable e = bgError;
    if (e != null) {
      throw new IOException("table " + ctx.tableName() + " failed in the background: " + e, e);
    }
  }

  /** When {@link #switchMemtable} switches. */
  enum Switch {
    /** The memtable is full and an immutable slot is free (a write filled it). */
    IF_FULL,
    /** The memtable holds something and an immutable slot is free (the write buffer budget). */
    IF_SLOT_FREE,
    /** Always (an explicit flush or checkpoint). */
    ALWAYS
  }

  /**
   * Freezes the memtable (as {@code when} says) and schedules its flush.
   *
   * @return the frozen memtable, or {@code null} when nothing was switched
   */
  FrozenMemTable switchMemtable(Switch when) {
    FrozenMemTable frozen;
    long stamp = writeFence.writeLock();
    try {
      synchronized (svLock) {
        SuperVersion s = sv;
        boolean slotFree = s.imms().size() < opt.maxImmutableMemtables();
        boolean go = switch (when) {
          case IF_FULL -> slotFree && s.mem().approximateBytes() >= opt.memtableBytes();
          case IF_SLOT_FREE -> slotFree && !s.mem().isEmpty() && !closed;
          case ALWAYS -> true;
        };
        if (!go) {
          return null;
        }
        long applied = ctx.appliedLsn().getAsLong();
        frozen =
            new FrozenMemTable(s.mem(), applied, lastSeq.get(), new java.util.concurrent.CompletableFuture<>());
        List<FrozenMemTable> imms = new ArrayList<>(s.imms().size() + 1);
        imms.add(frozen);
        imms.addAll(s.imms());
        installLocked(new MemTable(), List.copyOf(imms));
      }
    } finally {
      writeFence.unlockWrite(stamp);
    }
    background.scheduleFlush();
    return frozen;
  }

  /** Replaces the read view. REQUIRES: svLock held. */
  private void installLocked(MemTable mem, List<FrozenMemTable> imms) {
    assert Thread.holdsLock(svLock);
    SuperVersion old = sv;
    sv = new SuperVersion(mem, imms, versions.acquireCurrent());
    old.version().unref();
    if (sv.version() != old.version()) {
      pins.scrape(); // the pins cached by reading threads are on older versions now
    }
  }

  /** The oldest immutable memtable, or {@code null}. */
  FrozenMemTable oldestImmutable() {
    List<FrozenMemTable> imms = sv.imms();
    return imms.isEmpty() ? null : imms.get(imms.size() - 1);
  }

  /** After {@code done} is in the manifest: drops it from the view and installs the new version. */
  void flushInstalled(FrozenMemTable done) {
    synchronized (svLock) {
      SuperVersion s = sv;
      List<FrozenMemTable> imms = new ArrayList<>(s.imms());
      imms.remove(done);
      installLocked(s.mem(), List.copyOf(imms));
    }
    signalRoom();
    budget.flushed();
  }

  /** After a compaction's edit is in the manifest: installs the new version. */
  void versionChanged() {
    synchronized (svLock) {
      SuperVersion s = sv;
      installLocked(s.mem(), s.imms());
    }
    signalRoom();
  }

  void latchBackgroundError(Throwable e) {
    synchronized (svLock) {
      if (bgError == null) {
        bgError = e;
        LOG.error("table {}: background work failed; writes are refused from now on", ctx.tableName(), e);
      }
    }
    signalRoom();
    budget.flushed(); // its memtables are left out of the budget from now on
  }

  Throwable backgroundError() {
    return bgError;
  }

  boolean isClosed() {
    return closed;
  }

  // ---- reads ----

  private SuperVersion acquire() {
    for (;;) {
      SuperVersion s = sv;
      if (s.version().tryRef()) {
        return s;
      }
    }
  }

  /**
   * The newest entry of {@code key} in the memtables of {@code s}, newest memtable first, or
   * {@code null}. Memtables need no pin: they are plain heap objects.
   */
  private static byte[] memTableLookup(SuperVersion s, byte[] key) {
    byte[] e = s.mem().latestValue(key);
    return e != null ? e : immutableLookup(s, key);
  }

  /** {@link #memTableLookup} in the immutable memtables of {@code s} only. */
  private static byte[] immutableLookup(SuperVersion s, byte[] key) {
    for (FrozenMemTable imm : s.imms()) {
      byte[] e = imm.mem().latestValue(key);
      if (e != null) {
        return e;
      }
    }
    return null;
  }

  @Override
  public byte[] get(byte[] key) throws IOException {
    return read(key, false);
  }

  /**
   * The value without a copy: the memtable's array (kept as written, never changed) or the row
   * cache's (the same).
   */
  @Override
  public byte[] getReadOnly(byte[] key) throws IOException {
    return read(key, true);
  }

  /**
   * Looks the keys up in the active memtable together ({@link MemTable#latestValues}: their cache
   * misses overlap), then reads each key it did not hold as {@link #getReadOnly} does, from the
   * immutable memtables on (the active one is not probed twice).
   */
  @Override
  public void multiGetReadOnly(byte[][] keys, byte[][] values) throws IOException {
    SuperVersion seen = sv;
    seen.mem().latestValues(keys, keys.length, values);
    for (int i = 0; i < keys.length; i++) {
      byte[] hit = values[i];
      values[i] = read(keys[i], true, seen, hit != null ? hit : immutableLookup(seen, keys[i]));
    }
  }

  /**
   * A point read of the newest value; {@code readOnly}: the value may be the memtable's or the row
   * cache's array, otherwise it is the caller's own (copied only where it is shared: a value read
   * from a block and not cached is fresh). A memtable hit takes no reference on the version; a read
   * that goes on to the SSTables pins the current version through this thread's cached pin
   * ({@link ReadPins}: no shared counter written by every read), and looks in its memtables again
   * if the super version changed meanwhile.
   */
  private byte[] read(byte[] key, boolean readOnly) throws IOException {
    SuperVersion seen = sv;
    return read(key, readOnly, seen, memTableLookup(seen, key));
  }

  /** {@link #read(byte[], boolean)} once {@code hit}, {@code memTableLookup(seen, key)}, is known. */
  private byte[] read(byte[] key, boolean readOnly, SuperVersion seen, byte[] hit) throws IOException {
    if (hit != null) {
      return hit == MemTable.DELETED ? null : readOnly ? hit : hit.clone();
    }
    ReadPins.Slot slot = pins.enter();
    Version v = null;
    try {
      SuperVersion s = sv;
      while ((v = pins.pin(slot, s.version())) == null) {
        s = sv; // that version was just replaced
      }
      byte[] e = s == seen ? null : memTableLookup(s, key);
      if (e != null) {
        return e == MemTable.DELETED ? null : readOnly ? e : e.clone();
      }
      long hash = BloomFormat.hash(key);
      for (FileMetadata f : v.files(0)) {
        if (f.covers(key)) {
          Lookup l = f.reader(files, cache).get(key, hash, InternalKey.MAX_SEQ_NUM, readOnly);
          if (l != null) {
            return l.kind() == ValueKind.PUT ? l.value() : null;
          }
        }
      }
      for (int level = 1; level < v.levelCount(); level++) {
        FileMetadata f = v.findFile(level, key);
        if (f != null) {
          Lookup l = f.reader(files, cache).get(key, hash, InternalKey.MAX_SEQ_NUM, readOnly);
          if (l != null) {
            return l.kind() == ValueKind.PUT ? l.value() : null;
          }
        }
      }
      return null;
    } finally {
      pins.exit(slot, v);
    }
  }

  @Override
  public Cursor newCursor(byte[] fromInclusive, byte[] toExclusive) throws IOException {
    SuperVersion s;
    long snapshot;
    long stamp = writeFence.writeLock();
    try {
      snapshot = lastSeq.get();
      s = acquire();
      snapshots.register(snapshot); // under the fence: writers from now on keep what it sees
    } finally {
      writeFence.unlockWrite(stamp);
    }
    final long snap = snapshot;
    Runnable release = () -> snapshots.release(snap);
    List<InternalCursor> children = new ArrayList<>();
    try {
      children.add(s.mem().newCursor(snapshot));
      for (FrozenMemTable imm : s.imms()) {
        children.add(imm.mem().newCursor(snapshot));
      }
      Version v = s.version();
      for (FileMetadata f : v.files(0)) {
        if (f.overlaps(fromInclusive, null)) {
          children.add(f.reader(files, cache).newCursor(false));
        }
      }
      for (int level = 1; level < v.levelCount(); level++) {
        if (!v.files(level).isEmpty()) {
          children.add(new LevelCursor(v.files(level), files, cache, false));
        }
      }
    } catch (IOException | RuntimeException e) {
      for (InternalCursor c : children) {
        c.close();
      }
      s.version().unref();
      release.run();
      throw e;
    }
    return new LsmCursor(
        new MergingCursor(children), s.version(), release, fromInclusive, toExclusive, ctx.tableName());
  }

  // ---- persistence ----

  @Override
  public long flush() throws IOException {
    checkWritable();
    FrozenMemTable f = switchMemtable(Switch.ALWAYS);
    try {
      f.flushed().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for a flush", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException io ? new IOException(io.getMessage(), io)
          : new IOException("flush failed: " + cause, cause);
    }
    return versions.persistedLsn();
  }

  @Override
  public long persistedLsn() {
    return versions.persistedLsn();
  }

  /**
   * Copies the durable state into {@code targetDirectory}: pins the current version together with
   * the persisted LSN logged with it, hard-links its SSTables (immutable, and kept on disk by the
   * pin while flushes and compactions go on), then writes a fresh manifest and CURRENT describing
   * exactly that version. The copy opens as a table at that persisted LSN; the core replays its log
   * copy above it. Memtables are not copied: what they hold is above the persisted LSN.
   */
  @Override
  public void backup(Path targetDirectory) throws IOException {
    checkWritable();
    VersionSet.Snapshot snap = versions.snapshot();
    try {
      fs.createDirectories(targetDirectory);
      Version v = snap.version();
      for (int level = 0; level < v.levelCount(); level++) {
        for (FileMetadata f : v.files(level)) {
          String name = SstableFormat.fileName(f.fileNum());
          fs.createLink(targetDirectory.resolve(name), dir.resolve(name));
        }
      }
      VersionSet.writeBackupManifest(fs, targetDirectory, snap);
      LOG.info("table {}: backed up {} at persistedLsn={} to {}", ctx.tableName(), v, snap.persistedLsn(),
          targetDirectory);
    } finally {
      snap.version().unref();
    }
  }

  // ---- for the background jobs ----

  LsmOptions options() {
    return opt;
  }

  FileSystem fileSystem() {
    return fs;
  }

  Path directory() {
    return dir;
  }

  VersionSet versions() {
    return versions;
  }

  OpenFiles openFiles() {
    return files;
  }

  BlockCache blockCache() {
    return cache;
  }

  LsmStatistics statistics() {
    return statistics;
  }

  // ---- statistics and life cycle ----

  /**
   * The table's statistics.
   *
   * <p>Survive a reopen, because they are computed from the persisted file set (the manifest
   * records each SSTable's size and entry count): the entry estimate (entries of all SSTables,
   * tombstones and shadowed versions included, plus the memtables' entries), the bytes on disk of
   * the SSTables, {@code level.N.files}, {@code level.N.bytes}, {@code space.amplification.x100},
   * {@code persisted.lsn} and {@code last.seq}. (The manifest part of {@code bytesOnDisk} shrinks at
   * a reopen, which rewrites the manifest as one snapshot record.)
   *
   * <p>Counted since this open, reset to 0 by a reopen: {@code bytes.user.written},
   * {@code bytes.flushed}, {@code bytes.compaction.read}, {@code bytes.compaction.written},
   * {@code write.amplification.x100} (from those), {@code flushes}, {@code compactions},
   * {@code write.stalls}, {@code write.stall.millis}, and the block cache's {@code block.cache.hits},
   * {@code block.cache.misses} and {@code block.cache.hit.rate.permille}, and the row cache's
   * {@code row.cache.hits} and {@code row.cache.misses} (a probe of a file that does not hold the key
   * is a miss too). Gauges of the moment: {@code memtable.bytes}, {@code immutable.memtables},
   * {@code block.cache.bytes} (blocks and rows),
   * {@code open.files}, {@code resident.readers}, {@code index.filter.bytes}.
   */
  @Override
  public EngineStats stats() {
    SuperVersion s = acquire();
    try {
      Version v = s.version();
      long entries = v.totalEntries() + s.mem().entryCount();
      long memBytes = s.mem().approximateBytes();
      for (FrozenMemTable imm : s.imms()) {
        entries += imm.mem().entryCount();
        memBytes += imm.mem().approximateBytes();
      }
      Map<String, Long> d = new LinkedHashMap<>();
      long flushed = statistics.bytesFlushed.sum();
      long compacted = statistics.bytesCompactionWritten.sum();
      d.put("write.amplification.x100", flushed == 0 ? 100 : (flushed + compacted) * 100 / flushed);
      long bottom = 0;
      for (int level = v.levelCount() - 1; level >= 0; level--) {
        if (!v.files(level).isEmpty()) {
          bottom = v.levelBytes(level);
          break;
        }
      }
      d.put("space.amplification.x100", bottom == 0 ? 100 : v.totalBytes() * 100 / bottom);
      d.put("bytes.user.written", statistics.userBytes.sum());
      d.put("bytes.flushed", flushed);
      d.put("bytes.compaction.read", statistics.bytesCompactionRead.sum());
      d.put("bytes.compaction.written", compacted);
      d.put("flushes", statistics.flushes.sum());
      d.put("compactions", statistics.compactions.sum());
      d.put("write.stalls", statistics.stalls.sum());
      d.put("write.stall.millis", statistics.stallNanos.sum() / 1_000_000);
      d.put("memtable.bytes", memBytes);
      d.put("immutable.memtables", (long) s.imms().size());
      long hits = cache.hits();
      long total = hits + cache.misses();
      d.put("block.cache.bytes", cache.usedBytes());
      d.put("block.cache.hit.rate.permille", total == 0 ? 0 : hits * 1000 / total);
      d.put("block.cache.hits", hits);
      d.put("block.cache.misses", total - hits);
      d.put("row.cache.hits", cache.rowHits());
      d.put("row.cache.misses", cache.rowMisses());
      d.put("open.files", (long) files.openCount());
      d.put("resident.readers", (long) files.residentCount());
      long indexBytes = 0;
      for (int level = 0; level < v.levelCount(); level++) {
        for (FileMetadata f : v.files(level)) {
          if (f.openedReader() != null) {
            indexBytes += f.openedReader().memoryBytes();
          }
        }
      }
      d.put("index.filter.bytes", indexBytes);
      for (int level = 0; level < v.levelCount(); level++) {
        d.put("level." + level + ".files", (long) v.files(level).size());
        d.put("level." + level + ".bytes", v.levelBytes(level));
      }
      d.put("last.seq", lastSeq.get());
      d.put("persisted.lsn", versions.persistedLsn());
      return new EngineStats(entries, v.totalBytes() + versions.manifestBytes(), d);
    } finally {
      s.version().unref();
    }
  }

  @Override
  public void close() throws IOException {
    synchronized (svLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    signalRoom();
    background.shutdown();
    budget.unregister(this);
    pins.scrape();
    versions.close();
    files.close();
    cache.evictAll();
  }
}
