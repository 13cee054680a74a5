package org.kvstore.lsm;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;
import java.util.function.BooleanSupplier;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.io.FileSystem;
import org.kvstore.io.NoSpace;
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
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionSet;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineStats;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.Mutation;

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
 *       manifest and only grow. The LSN of a mutation is stored with its entry as the entry's
 *       version ({@link EngineTable}, "Versions and expiry"), beside its expiry time.
 *   <li><b>Expiry.</b> Every read judges expiry by {@link EngineContext#clock()}: a key whose
 *       newest entry is an expired put reads as absent, exactly as if that entry were a tombstone
 *       (older entries stay hidden). Flushes write expired puts as tombstones; compactions drop
 *       them, and tombstones, where nothing older lies below, and pick files that are mostly
 *       tombstones or expired entries on their own (docs/decisions/0026-lsm-expiry.md).
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
 *       {@link Version}; {@link SuperVersions} replaces it at each switch, flush and compaction.
 *       Readers pin its version; cursors keep the pin until closed, so the files they read are
 *       never deleted under them, and they keep the memtable objects they started with.
 *   <li><b>Back pressure.</b> Writers stall ({@link WriteStalls}) while the memtable is full and
 *       {@code max.immutable.memtables} immutables wait, while level 0 has
 *       {@code level0.stop.writes.trigger} files, or while the memtables of all the store's lsm
 *       tables hold its {@link WriteBufferBudget}, which also switches the largest memtable early.
 *   <li><b>Background work.</b> The {@link FlushCompactionScheduler} runs flushes and compactions
 *       through this table's {@link FlushCompactionScheduler.Table} methods, which do the file work
 *       ({@link FlushCompactionWork}) and install the result ({@link SuperVersions}).
 *   <li><b>Errors.</b> A failed flush or compaction is latched: every later write and flush fails
 *       with it as the cause; reads go on. Reopening the table recovers from the manifest and the
 *       core's log. One that failed for lack of disk space is not latched: it left its files
 *       deleted and the manifest as it was, so the table reports it to the store
 *       ({@link EngineContext#spaceListener()}), keeps taking writes while its memtables have room,
 *       and flushes and compacts again on {@link #retryAfterNoSpace()}. A write that then finds no
 *       room is refused, but applied all the same: the core logged it ({@link
 *       #makeRoomForLoggedWrite}). A compaction out of space while level 0 has room is only
 *       deferred: writes go on (see {@link FlushCompactionScheduler}).
 * </ul>
 *
 * <p>Lock order: {@code writeFence} before the {@link SuperVersions}' lock before the
 * {@link VersionSet}'s lock; the {@link WriteStalls}' lock is never held while taking another. No
 * file I/O happens under {@code writeFence} or the {@link SuperVersions}' lock.
 *
 * <p>Thread safety: thread-safe; readers never block readers.
 */
final class LsmTable implements EngineTable, FlushCompactionScheduler.Table {
  private final EngineContext ctx;
  private final LsmOptions opt;
  private final BlockCache cache;
  private final WriteBufferBudget budget;
  private final OpenFiles files;
  private final TableFiles tableFiles;
  private final VersionSet versions;
  /** Writers insert under it shared; a memtable switch and a cursor's snapshot take it exclusively. */
  private final StampedLock writeFence = new StampedLock();
  private final AtomicLong lastSeq;
  /** Point reads' per-thread pins on the current version (instead of its shared count). */
  private final ReadPins pins = new ReadPins();
  private final OpenSnapshots snapshots = new OpenSnapshots();
  private final LsmStatistics statistics = new LsmStatistics();
  private final FlushCompactionScheduler scheduler;
  private final SuperVersions views;
  private final WriteStalls stalls;
  private final FlushCompactionWork work;
  private final Clock clock;

  private LsmTable(
      EngineContext ctx, LsmOptions opt, BlockCache cache, WriteBufferBudget budget, OpenFiles files,
      TableFiles tableFiles, VersionSet versions) {
    this.ctx = ctx;
    this.opt = opt;
    this.cache = cache;
    this.budget = budget;
    this.files = files;
    this.tableFiles = tableFiles;
    this.versions = versions;
    this.lastSeq = new AtomicLong(versions.lastSeqNum());
    this.clock = ctx.clock();
    // The scheduler calls this table only from its tasks, the first queued after construction.
    this.scheduler = new FlushCompactionScheduler(ctx.tableName(), this);
    this.views = new SuperVersions(
        opt, versions, ctx.appliedLsn(), writeFence, lastSeq, pins, scheduler, budget.arena());
    this.stalls = new WriteStalls(ctx.tableName(), opt, budget, statistics, views, scheduler);
    this.work =
        new FlushCompactionWork(
            ctx.tableName(), opt, ctx.fileSystem(), ctx.directory(), versions, files, cache, statistics,
            ctx.clock());
  }

  /**
   * Opens (or creates) the table in {@code ctx.directory()}, caching its blocks in {@code cache} (a
   * view of the store's shared cache or of one of its own), its memtables counted in
   * {@code budget} (the store's); closing the table empties the view and leaves the budget.
   */
  static LsmTable open(EngineContext ctx, LsmOptions opt, BlockCache cache, WriteBufferBudget budget)
      throws IOException {
    FileSystem fs = ctx.fileSystem();
    Path dir = ctx.directory();
    fs.createDirectories(dir);
    OpenFiles files = new OpenFiles(fs, dir, opt.maxOpenFiles());
    TableFiles tableFiles = new TableFiles(ctx.tableName(), fs, dir, files, cache);
    VersionSet versions = VersionSet.open(fs, dir, opt.numLevels(), tableFiles::deleteObsolete);
    try {
      tableFiles.sweepUnreferenced(versions);
      LsmTable t = new LsmTable(ctx, opt, cache, budget, files, tableFiles, versions);
      versions.logState(ctx.tableName());
      t.scheduler.maybeScheduleCompaction();
      budget.register(t);
      return t;
    } catch (IOException | RuntimeException e) {
      versions.close();
      tableFiles.close();
      throw e;
    }
  }

  // ---- writes ----

  @Override
  public void put(byte[] key, byte[] value, long expiresAt, long lsn) throws IOException {
    IOException noRoom = makeRoomForLoggedWrite();
    MemTable mem;
    long size;
    long stamp = writeFence.readLock();
    try {
      mem = views.current().mem();
      size = mem.add(key, lastSeq.incrementAndGet(), ValueKind.PUT, value, lsn, expiresAt, snapshots.oldest());
    } finally {
      writeFence.unlockRead(stamp);
    }
    statistics.userBytes.add(key.length + value.length);
    afterWrite(mem, size);
    if (noRoom != null) {
      throw noRoom;
    }
  }

  @Override
  public void remove(byte[] key, long lsn) throws IOException {
    IOException noRoom = makeRoomForLoggedWrite();
    MemTable mem;
    long size;
    long stamp = writeFence.readLock();
    try {
      mem = views.current().mem();
      size = mem.add(key, lastSeq.incrementAndGet(), ValueKind.DELETE, null, lsn, Entry.NO_EXPIRY,
          snapshots.oldest());
    } finally {
      writeFence.unlockRead(stamp);
    }
    statistics.userBytes.add(key.length);
    afterWrite(mem, size);
    if (noRoom != null) {
      throw noRoom;
    }
  }

  @Override
  public void apply(List<Mutation> batch, long lsn) throws IOException {
    if (batch.isEmpty()) {
      return;
    }
    IOException noRoom = makeRoomForLoggedWrite();
    long size = 0;
    long bytes = 0;
    MemTable mem;
    long stamp = writeFence.readLock();
    try {
      mem = views.current().mem();
      long oldest = snapshots.oldest();
      long seq = lastSeq.getAndAdd(batch.size()) + 1;
      for (Mutation m : batch) {
        if (m.isRemove()) {
          size = mem.add(m.key(), seq++, ValueKind.DELETE, null, lsn, Entry.NO_EXPIRY, oldest);
          bytes += m.key().length;
        } else {
          size = mem.add(m.key(), seq++, ValueKind.PUT, m.value(), lsn, m.expiresAt(), oldest);
          bytes += m.key().length + m.value().length;
        }
      }
    } finally {
      writeFence.unlockRead(stamp);
    }
    statistics.userBytes.add(bytes);
    afterWrite(mem, size);
    if (noRoom != null) {
      throw noRoom;
    }
  }

  /**
   * Waits for room for a write the core has logged ({@link WriteStalls#makeRoomForWrite}). When
   * there is none for lack of disk space (a flush, or the compaction a full level 0 waits for,
   * failed), returns that refusal instead of throwing it: the caller applies the write all the same,
   * then throws it, so that the store refuses further writes until space is freed. A write
   * refused but not applied would still be in the log while the store's apply watermark, which
   * passes every write whose apply returned, by an exception too, moved past it: the next flush
   * would record it as persisted and drop it, but a restart before that flush would replay it,
   * after reads had seen its key without it and a remove of that key had been acknowledged with
   * nothing to log (and so undone). The memtable goes over its size by at most one write per
   * writer that passed the store's check before the store began refusing writes.
   */
  private IOException makeRoomForLoggedWrite() throws IOException {
    try {
      stalls.makeRoomForWrite();
      return null;
    } catch (IOException e) {
      if (!NoSpace.causedBy(e)) {
        throw e;
      }
      return e;
    }
  }

  /**
   * After a write that left {@code mem} (the memtable it went to, which may no longer be the active
   * one) at {@code memBytes}: switches a full memtable, or reports a step of growth to the budget.
   * The report mark is the memtable's own, so a writer that finishes after a switch moves the old
   * memtable's mark, never the new one's.
   */
  private void afterWrite(MemTable mem, long memBytes) {
    if (memBytes >= opt.memtableBytes()) {
      views.switchMemtable(SuperVersions.Switch.IF_FULL);
    } else if (budget.limitBytes() > 0 && mem.passedReportMark(memBytes, budget.checkStep())) {
      budget.grew();
    }
  }

  // ---- for the write buffer budget ----

  /** The memtables' bytes, both read from one view (a switch moves bytes from one to the other). */
  SuperVersions.MemtableBytes memtableBytes() {
    return views.memtableBytes();
  }

  /** Whether {@link SuperVersions.Switch#IF_SLOT_FREE} would switch the memtable now. */
  boolean canSwitchMemtable() {
    return views.canSwitchMemtable();
  }

  /**
   * Freezes the memtable (as {@code when} says) and schedules its flush.
   *
   * @return the frozen memtable, or {@code null} when nothing was switched
   */
  FrozenMemTable switchMemtable(SuperVersions.Switch when) {
    return views.switchMemtable(when);
  }

  /** Wakes this table's stalled writers to look again. */
  void signalRoom() {
    stalls.signalRoom();
  }

  /** The latched failure of a flush or compaction, or {@code null}. */
  Throwable backgroundError() {
    return scheduler.failure();
  }

  // ---- for the flush and compaction scheduler ----

  @Override
  public FrozenMemTable oldestImmutable() {
    return views.oldestImmutable();
  }

  @Override
  public void flushMemtable(FrozenMemTable f) throws IOException {
    work.flush(f);
    views.flushInstalled(f);
    stalls.signalRoom();
    budget.flushed();
  }

  @Override
  public boolean compactOnce(BooleanSupplier aborted) throws IOException {
    if (!work.compactOnce(aborted)) {
      return false;
    }
    views.versionChanged();
    stalls.signalRoom();
    return true;
  }

  @Override
  public void backgroundFailed() {
    stalls.signalRoom();
    budget.flushed(); // its memtables are left out of the budget from now on
  }

  @Override
  public void backgroundOutOfSpace(IOException cause) {
    stalls.signalRoom();
    ctx.spaceListener().outOfSpace(cause);
  }

  @Override
  public boolean level0Full() {
    return views.current().version().files(0).size() >= opt.level0StopWritesTrigger();
  }

  @Override
  public void compactionDeferred(IOException cause) {
    statistics.compactionsDeferred.increment();
  }

  /** Flushes the memtables that wait since a flush failed for lack of space, then compacts. */
  @Override
  public void retryAfterNoSpace() throws IOException {
    if (views.isClosed()) {
      throw new IOException("table " + ctx.tableName() + " is closed");
    }
    scheduler.retryAfterNoSpace();
  }

  // ---- reads ----

  /**
   * The newest value of {@code key} in the memtables of {@code s}, newest memtable first
   * ({@link MemTable#latestValue}: {@link MemTable#DELETED} for a delete or an expired put,
   * {@link MemTable#RETRY} when a flushed memtable was recycled under the read), or {@code null}.
   * Memtables need no pin (see {@link MemTable#RETRY}); {@code copy}: the value is the caller's own.
   */
  private byte[] memTableLookup(SuperVersion s, byte[] key, boolean copy) {
    byte[] e = s.mem().latestValue(key, clock, copy);
    return e != null ? e : immutableLookup(s, key, copy);
  }

  /** {@link #memTableLookup} in the immutable memtables of {@code s} only. */
  private byte[] immutableLookup(SuperVersion s, byte[] key, boolean copy) {
    for (FrozenMemTable imm : s.imms()) {
      byte[] e = imm.mem().latestValue(key, clock, copy);
      if (e != null) {
        return e;
      }
    }
    return null;
  }

  /**
   * The newest entry of {@code key} with its version and expiry: from the memtables, newest first,
   * then the SSTables as {@link #read} looks there. Expired or deleted: {@code null}.
   */
  @Override
  public Entry getEntry(byte[] key) throws IOException {
    Lookup l;
    do {
      l = lookupEntry(key);
    } while (l == Lookup.RETRY); // a flushed memtable was recycled under the read
    if (l == null || !l.isLiveAt(clock.millis())) {
      return null;
    }
    return new Entry(l.value(), l.version(), l.expiresAt()); // the lookup's own copy
  }

  /** {@link #getEntry}'s lookup, or {@link Lookup#RETRY}: read again. */
  private Lookup lookupEntry(byte[] key) throws IOException {
    SuperVersion s = views.current();
    Lookup l = memTableEntry(s, key);
    if (l != null) {
      return l;
    }
    ReadPins.Slot slot = pins.enter();
    Version v = null;
    try {
      SuperVersion pinned = views.current();
      while ((v = pins.pin(slot, pinned.version())) == null) {
        pinned = views.current();
      }
      l = pinned == s ? null : memTableEntry(pinned, key);
      return l != null ? l : sstableLookup(v, key);
    } finally {
      pins.exit(slot, v);
    }
  }

  /**
   * The newest entry of {@code key} in the memtables of {@code s}, newest first, or {@code null} (or
   * {@link Lookup#RETRY}).
   */
  private static Lookup memTableEntry(SuperVersion s, byte[] key) {
    Lookup l = s.mem().latestEntry(key);
    for (int i = 0; l == null && i < s.imms().size(); i++) {
      l = s.imms().get(i).mem().latestEntry(key);
    }
    return l;
  }

  /**
   * The newest entry of {@code key} in the SSTables of {@code v} (pinned by the caller): level-0
   * files newest first, then one file per level; {@code null} when none holds it.
   */
  private Lookup sstableLookup(Version v, byte[] key) throws IOException {
    long hash = BloomFormat.hash(key);
    for (FileMetadata f : v.files(0)) {
      if (f.covers(key)) {
        Lookup l = f.reader(files, cache).get(key, hash, InternalKey.MAX_SEQ_NUM);
        if (l != null) {
          return l;
        }
      }
    }
    for (int level = 1; level < v.levelCount(); level++) {
      FileMetadata f = v.findFile(level, key);
      if (f != null) {
        Lookup l = f.reader(files, cache).get(key, hash, InternalKey.MAX_SEQ_NUM);
        if (l != null) {
          return l;
        }
      }
    }
    return null;
  }

  @Override
  public byte[] get(byte[] key) throws IOException {
    return read(key, false);
  }

  /**
   * The value without a copy where one exists: a memtable value kept on the heap is the memtable's
   * array (kept as written, never changed); an arena value, a block's or a cached row's is copied
   * out anyway.
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
    SuperVersion seen = views.current();
    seen.mem().latestValues(keys, keys.length, values, clock);
    for (int i = 0; i < keys.length; i++) {
      byte[] hit = values[i];
      values[i] = read(keys[i], true, seen, hit != null ? hit : immutableLookup(seen, keys[i], false));
    }
  }

  /**
   * A point read of the newest value; {@code readOnly}: the value may be the memtable's array,
   * otherwise it is the caller's own (copied only where it is shared: a value read from a block or
   * the row cache is fresh). A memtable hit takes no reference on the version; a read
   * that goes on to the SSTables pins the current version through this thread's cached pin
   * ({@link ReadPins}: no shared counter written by every read), and looks in its memtables again
   * if the super version changed meanwhile. A memtable value in the arena is copied out; a flushed
   * memtable recycled while the read copied from it ({@link MemTable#RETRY}) makes the read start
   * again from the current view, where that memtable's SSTable is.
   */
  private byte[] read(byte[] key, boolean readOnly) throws IOException {
    SuperVersion seen = views.current();
    return read(key, readOnly, seen, memTableLookup(seen, key, !readOnly));
  }

  /** The table's current view (for tests that hold one across a flush). */
  SuperVersion view() {
    return views.current();
  }

  /**
   * A read-only point read that took its view {@code seen} earlier, as a read racing a flush did
   * (for tests: the memtables of {@code seen} may be recycled by now).
   */
  byte[] readFrom(SuperVersion seen, byte[] key) throws IOException {
    return read(key, true, seen, memTableLookup(seen, key, false));
  }

  /**
   * {@link #read(byte[], boolean)} once {@code hit}, {@code memTableLookup(seen, key, !readOnly)},
   * is known.
   */
  private byte[] read(byte[] key, boolean readOnly, SuperVersion seen, byte[] hit) throws IOException {
    for (;;) {
      while (hit == MemTable.RETRY) { // a flushed memtable was recycled under the read
        seen = views.current();
        hit = memTableLookup(seen, key, !readOnly);
      }
      if (hit != null) {
        return hit == MemTable.DELETED ? null : hit;
      }
      ReadPins.Slot slot = pins.enter();
      Version v = null;
      try {
        SuperVersion s = views.current();
        while ((v = pins.pin(slot, s.version())) == null) {
          s = views.current(); // that version was just replaced
        }
        if (s != seen) {
          seen = s;
          hit = memTableLookup(s, key, !readOnly);
          if (hit != null) {
            continue; // RETRY again, or the value found (the loop's head returns it)
          }
        }
        Lookup l = sstableLookup(v, key);
        if (l == null || l.kind() != ValueKind.PUT) {
          return null;
        }
        // The clock is read only for an entry that expires.
        return l.expiresAt() == Entry.NO_EXPIRY || l.isLiveAt(clock.millis()) ? l.value() : null;
      } finally {
        pins.exit(slot, v);
      }
    }
  }

  @Override
  public Cursor newCursor(byte[] fromInclusive, byte[] toExclusive) throws IOException {
    return openCursor(fromInclusive, toExclusive, clock);
  }

  /** A cursor that also returns expired entries (the store's active expiry finds them this way). */
  @Override
  public Cursor newCursorIncludingExpired(byte[] fromInclusive, byte[] toExclusive) throws IOException {
    return openCursor(fromInclusive, toExclusive, null);
  }

  /**
   * A cursor judging expiry by {@code expiryClock}; null: expired entries are returned too. Its
   * memtable cursors hold references on their memtables; when a memtable of the view it took was
   * flushed and recycled before that ({@link MemTable#tryNewCursor}), it starts over from the
   * current view.
   */
  private Cursor openCursor(byte[] fromInclusive, byte[] toExclusive, Clock expiryClock) throws IOException {
    for (;;) {
      Cursor c = tryOpenCursor(fromInclusive, toExclusive, expiryClock);
      if (c != null) {
        return c;
      }
    }
  }

  /** {@link #openCursor}, or {@code null} when a memtable of the view was recycled meanwhile. */
  private Cursor tryOpenCursor(byte[] fromInclusive, byte[] toExclusive, Clock expiryClock) throws IOException {
    SuperVersion s;
    long snapshot;
    long stamp = writeFence.writeLock();
    try {
      snapshot = lastSeq.get();
      s = views.acquire();
      snapshots.register(snapshot); // under the fence: writers from now on keep what it sees
    } finally {
      writeFence.unlockWrite(stamp);
    }
    final long snap = snapshot;
    Runnable release = () -> snapshots.release(snap);
    List<InternalCursor> children = new ArrayList<>();
    try {
      List<MemTable> mems = new ArrayList<>(s.imms().size() + 1);
      mems.add(s.mem());
      for (FrozenMemTable imm : s.imms()) {
        mems.add(imm.mem());
      }
      for (MemTable m : mems) {
        MemTable.MemTableCursor c = m.tryNewCursor(snapshot);
        if (c == null) {
          for (InternalCursor open : children) {
            open.close();
          }
          s.version().unref();
          release.run();
          return null;
        }
        children.add(c);
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
        new MergingCursor(children), s.version(), release, fromInclusive, toExclusive, ctx.tableName(),
        expiryClock);
  }

  // ---- persistence ----

  /** Switches the memtable and waits until its flush is durable; returns the persisted LSN. */
  @Override
  public long flush() throws IOException {
    stalls.checkWritable();
    IOException noSpace = scheduler.noSpace();
    if (noSpace != null) {
      // No flush runs until retryAfterNoSpace(): switching would only pile up memtables meanwhile.
      throw new IOException("table " + ctx.tableName() + " cannot flush until disk space is freed: "
          + noSpace.getMessage(), noSpace);
    }
    FrozenMemTable f = views.switchMemtable(SuperVersions.Switch.ALWAYS);
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

  /** Copies the durable state into {@code targetDirectory}: see {@link TableFiles#backup}. */
  @Override
  public void backup(Path targetDirectory) throws IOException {
    stalls.checkWritable();
    tableFiles.backup(versions, targetDirectory);
  }

  // ---- statistics and life cycle ----

  /** The table's view of its block cache (for tests). */
  BlockCache blockCache() {
    return cache;
  }

  /** The table's statistics: see {@link LsmStatistics#report} for what they hold. */
  @Override
  public EngineStats stats() {
    SuperVersion s = views.acquire();
    try {
      return statistics.report(s, versions, cache, files, lastSeq.get(), scheduler.compactionDeferred() != null);
    } finally {
      s.version().unref();
    }
  }

  @Override
  public void close() throws IOException {
    if (!views.close()) {
      return;
    }
    stalls.signalRoom();
    scheduler.shutdown();
    views.releaseMemtables();
    budget.unregister(this);
    pins.scrape();
    versions.close();
    tableFiles.close();
  }
}
