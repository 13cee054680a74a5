package org.kvstore.bplus.buffer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.kvstore.CorruptionException;
import org.kvstore.bplus.page.MetaPage;
import org.kvstore.bplus.page.PageFormat;
import org.kvstore.bplus.page.PageTablePage;
import org.kvstore.bplus.page.PageType;
import org.kvstore.io.NoSpace;
import org.kvstore.io.StorageFile;

/**
 * The page file with shadow paging (docs/format/bplus.md sections 1 and 4): positional reads and
 * writes of whole pages through the core {@link StorageFile}, the in-memory page table (logical
 * page to slot), the free logical pages and the slot bitmap.
 *
 * <p>Design. A slot referenced by the durable checkpoint or by the checkpoint being written is
 * <em>protected</em> and is never written. {@link #writePage} writes a logical page into its current
 * slot when that slot is unprotected (it was first written after the last checkpoint), and into a
 * fresh free slot otherwise. So whatever a crash interrupts, the slots the durable meta page
 * references still hold the checkpoint's images. A fresh slot is the lowest free one, so pages
 * rewritten at a checkpoint move towards the file's start, and once a checkpoint is durable the
 * free tail of the file is cut ({@link #truncateFreeTail}).
 *
 * <p>Spare slots (docs/decisions/0031-bplus-spare-slots.md). A slot is <em>written</em> when this
 * process wrote it (or it lay inside the file when opened): writing it again needs no new disk
 * blocks. A free written slot is <em>spare</em>, and {@link #allocateSlotLocked} hands out spare
 * slots first. Before a tree change, {@link #reserve} makes sure there are at least as many spare
 * slots as dirty pages in the buffer pool plus the pages every change in flight may still dirty,
 * writing zero pages into free slots (at the end of the file, usually) when there are not: that is
 * where a full disk is noticed, before the change touched anything. Every write-back during the
 * change then lands in a spare slot or in place, so a tree change never fails half way for lack
 * of space.
 *
 * <p>Thread safety: thread-safe. The maps are guarded by {@code this}; I/O runs outside the lock,
 * except the rare truncation of the file's free tail and the writing of zero pages into spare
 * slots, which must not race with handing out a slot.
 * Writes of one logical page never race: the buffer pool writes a frame back only while no other
 * thread can pin it, and the checkpointer only while writers are paused.
 */
public final class PageFile implements AutoCloseable {
  /** The root's logical id, which is never free. */
  private static final long ROOT_ID = 1;

  private final StorageFile file;
  private final int pageSize;

  @GuardedBy("this")
  private long[] table;
  @GuardedBy("this")
  private long logicalPages;
  @GuardedBy("this")
  private long[] freeIds = new long[16];
  @GuardedBy("this")
  private int freeIdCount;
  @GuardedBy("this")
  private final BitSet used = new BitSet();
  @GuardedBy("this")
  private BitSet protectedSlots = new BitSet();
  @GuardedBy("this")
  private long[] durableTable;
  @GuardedBy("this")
  private long[] durablePageTableSlots = new long[0];
  @GuardedBy("this")
  private long fileSlots;
  @GuardedBy("this")
  private int allocHint = PageFormat.META_SLOTS;
  @GuardedBy("this")
  private long changes;
  /** Slots that hold disk blocks (see the class comment). */
  @GuardedBy("this")
  private final BitSet written = new BitSet();
  /** Written slots that are free: {@code written} and not {@code used}. */
  @GuardedBy("this")
  private final BitSet spare = new BitSet();
  /** The number of {@code spare} slots; written under the monitor, read without it. */
  private volatile int spareCount;
  /** No spare slot lies below it. */
  @GuardedBy("this")
  private int spareHint = PageFormat.META_SLOTS;
  /** Pages the tree changes in flight may still dirty ({@link #reserve}). */
  private final AtomicLong promised = new AtomicLong();
  /** Zeros for {@link #fillSpareLocked}, allocated on first use. */
  @GuardedBy("this")
  private byte[] zeros;

  private PageFile(StorageFile file, int pageSize) {
    this.file = file;
    this.pageSize = pageSize;
  }

  /** A new, empty page file (logical id 1 is allocated for the root; the caller writes it). */
  public static PageFile create(StorageFile file, int pageSize) {
    PageFile pf = new PageFile(file, pageSize);
    synchronized (pf) { // not yet shared, so uncontended: held to write the guarded fields as elsewhere
      pf.table = new long[64];
      pf.logicalPages = 1;
      pf.durableTable = new long[1];
      pf.fileSlots = PageFormat.META_SLOTS;
      pf.used.set(0, PageFormat.META_SLOTS);
      pf.protectedSlots.set(0, PageFormat.META_SLOTS);
    }
    return pf;
  }

  /**
   * Opens an existing page file at its newest valid checkpoint.
   *
   * @throws CorruptionException if no meta page is valid or the page table is damaged
   */
  public static Opened open(StorageFile file, int pageSize) throws IOException {
    PageFile pf = new PageFile(file, pageSize);
    MetaPage meta = pf.readNewestMeta();
    synchronized (pf) { // not yet shared, so uncontended: held to write the guarded fields as elsewhere
      pf.fileSlots = Math.max(PageFormat.META_SLOTS, (file.size() + pageSize - 1) / pageSize);
      // Slots inside the file are taken as written: only a failed write past the end of the file
      // can leave a hole, and filling one without new blocks is not guaranteed then.
      pf.written.set(0, (int) Math.min(Integer.MAX_VALUE - 8, file.size() / pageSize));
      long n = meta.logicalPages();
      if (n < 1 || n > Integer.MAX_VALUE - 8) {
        throw new CorruptionException(file.path(), meta.slot() * pageSize, "meta page: bad page count " + n);
      }
      pf.table = new long[(int) Math.max(64, n)];
      pf.logicalPages = n;
      long[] ptSlots = new long[16];
      int ptCount = 0;
      long slot = meta.pageTableHead();
      long expectFirst = 1;
      byte[] buf = new byte[pageSize];
      while (slot != 0) {
        if (slot < PageFormat.META_SLOTS || slot >= pf.fileSlots) {
          throw new CorruptionException(file.path(), slot * pageSize, "page table points at slot " + slot + " outside the file");
        }
        pf.readSlot(slot, buf);
        PageFormat.verify(buf, file.path(), slot, PageType.PAGE_TABLE, slot);
        long first = PageTablePage.firstLogical(buf);
        int count = PageTablePage.count(buf);
        if (first != expectFirst || count < 0 || count > PageTablePage.capacity(pageSize) || first + count > n) {
          throw new CorruptionException(file.path(), slot * pageSize, "page table page (slot " + slot + ") out of sequence");
        }
        for (int i = 0; i < count; i++) {
          long s = PageTablePage.entry(buf, i);
          if (s != 0 && (s < PageFormat.META_SLOTS || s >= pf.fileSlots)) {
            throw new CorruptionException(file.path(), slot * pageSize, "page table entry for page " + (first + i) + " names slot " + s + " outside the file");
          }
          pf.table[(int) (first + i)] = s;
        }
        expectFirst = first + count;
        if (ptCount == ptSlots.length) {
          ptSlots = Arrays.copyOf(ptSlots, ptCount * 2);
        }
        ptSlots[ptCount++] = slot;
        slot = PageTablePage.next(buf);
      }
      if (expectFirst != n && !(n == 1 && expectFirst == 1)) {
        throw new CorruptionException(file.path(), meta.slot() * pageSize, "page table covers pages below " + expectFirst + ", the meta page says " + n);
      }
      pf.durableTable = Arrays.copyOf(pf.table, (int) n);
      pf.durablePageTableSlots = Arrays.copyOf(ptSlots, ptCount);
      for (long id = n - 1; id >= 1; id--) {
        if (pf.table[(int) id] == 0) {
          pf.pushFreeIdLocked(id);
        }
      }
      pf.recomputeSlotsLocked(null, null);
    }
    return new Opened(pf, meta);
  }

  /** A page file opened at a checkpoint, and that checkpoint's meta page. */
  public record Opened(PageFile file, MetaPage meta) {}

  private MetaPage readNewestMeta() throws IOException {
    MetaPage best = null;
    CorruptionException first = null;
    byte[] buf = new byte[pageSize];
    for (long slot = 0; slot < PageFormat.META_SLOTS; slot++) {
      try {
        readSlot(slot, buf);
        MetaPage m = MetaPage.decodeFrom(buf, file.path(), slot);
        if (best == null || m.checkpointSeq() > best.checkpointSeq()) {
          best = m;
        }
      } catch (CorruptionException e) {
        if (first == null) {
          first = e;
        }
      } catch (java.io.EOFException e) {
        if (first == null) {
          first = new CorruptionException(file.path(), slot * pageSize, "meta page " + slot + " missing: " + e.getMessage());
        }
      }
    }
    if (best == null) {
      throw new CorruptionException(file.path(), 0, "no valid meta page in slots 0 and 1 (first error: " + (first == null ? "none" : first.getMessage()) + ")");
    }
    return best;
  }

  public Path path() {
    return file.path();
  }

  public int pageSize() {
    return pageSize;
  }

  private void readSlot(long slot, byte[] dst) throws IOException {
    file.readFully(ByteBuffer.wrap(dst), slot * pageSize);
  }

  /**
   * Reads logical page {@code id} into {@code dst} and checks it (CRC, version, page id).
   *
   * @return false when the page is free (no image): only a stale reference can ask for it
   * @throws CorruptionException if the page fails its checks, naming the file and page
   */
  public boolean readPage(long id, byte[] dst) throws IOException {
    long slot;
    synchronized (this) {
      slot = id > 0 && id < logicalPages ? table[(int) id] : 0;
    }
    if (slot == 0) {
      return false;
    }
    try {
      readSlot(slot, dst);
    } catch (java.io.EOFException e) {
      throw new CorruptionException(file.path(), slot * pageSize, "page " + id + " (slot " + slot + "): file ends inside it");
    }
    PageFormat.verify(dst, file.path(), slot, null, id);
    return true;
  }

  /**
   * Seals and writes logical page {@code id} (see the class comment for where). REQUIRES: no other
   * thread writes or changes page {@code id} meanwhile.
   */
  public void writePage(long id, byte[] src) throws IOException {
    long slot;
    long previous;
    boolean wasWritten;
    synchronized (this) {
      previous = table[(int) id];
      slot = previous;
      if (slot == 0 || protectedSlots.get((int) slot)) {
        slot = allocateSlotLocked();
      }
      // Published before the write: a concurrent checkpointDone() rebuilds the slot bitmap from
      // the table, and must see this slot as used. Nobody reads the page from disk meanwhile: its
      // frame stays mapped (pinned or being evicted) until this write returns.
      table[(int) id] = slot;
      changes++;
      wasWritten = written.get((int) slot);
    }
    PageFormat.seal(src);
    try {
      file.writeFully(ByteBuffer.wrap(src), slot * pageSize);
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        table[(int) id] = previous; // the new slot stays marked used: leaked until reopen
      }
      throw e;
    }
    if (!wasWritten) {
      markWritten(slot);
    }
  }

  /** Records that {@code slot}, a used slot, holds disk blocks now. */
  private synchronized void markWritten(long slot) {
    written.set((int) slot);
  }

  /**
   * Promises {@code pages} spare slots to a tree change about to start: makes sure the file has at
   * least as many spare slots as {@code dirtyPages} (dirty frames, each of which may need one
   * when written back) plus every promise in flight, this one included, writing zero pages into
   * free slots when it has not. The change calls {@link #release} with the same count when it
   * ends. REQUIRES: the caller holds the write gate shared, so no checkpoint's freeze (which takes
   * spare slots for its own writes) runs until the change ends.
   *
   * @throws IOException when the zero pages cannot be written (ENOSPC: see {@link NoSpace}); the
   *     promise is not made then
   */
  public void reserve(int pages, IntSupplier dirtyPages) throws IOException {
    long want = promised.addAndGet(pages);
    // Promise first, then count: a concurrent reserve that counted before this promise sees
    // fewer spare slots once they are taken, never more.
    if (spareCount >= dirtyPages.getAsInt() + want) {
      return;
    }
    try {
      fillSpare(dirtyPages);
    } catch (IOException | RuntimeException e) {
      promised.addAndGet(-pages);
      throw e;
    }
  }

  /** Ends the promise of {@link #reserve}. */
  public void release(int pages) {
    promised.addAndGet(-pages);
  }

  /** The number of spare slots (written and free). */
  public int spareSlots() {
    return spareCount;
  }

  /** The most zero pages one write of {@link #fillSpareLocked} writes. */
  private static final int FILL_RUN_BYTES = 1 << 20;
  /** Spare slots written beyond the shortfall when the file must grow, so it grows in steps. */
  static final int FILL_AHEAD_SLOTS = 16;

  private synchronized void fillSpare(IntSupplier dirtyPages) throws IOException {
    long need = dirtyPages.getAsInt() + promised.get() - spareCount;
    if (need <= 0) {
      return;
    }
    fillSpareLocked(need);
    try {
      fillSpareLocked(FILL_AHEAD_SLOTS);
    } catch (IOException e) {
      // The shortfall is covered; the slots written ahead are only there to grow in steps.
    }
  }

  /** Writes zero pages into {@code count} free slots that are not written yet, lowest first. */
  @GuardedBy("this")
  private void fillSpareLocked(long count) throws IOException {
    assert Thread.holdsLock(this);
    BitSet taken = (BitSet) used.clone();
    taken.or(written);
    int runMax = Math.max(1, FILL_RUN_BYTES / pageSize);
    if (zeros == null) {
      zeros = new byte[runMax * pageSize];
    }
    long left = count;
    int s = taken.nextClearBit(PageFormat.META_SLOTS);
    while (left > 0) {
      int next = taken.nextSetBit(s);
      int end = (int) Math.min(Math.min(next < 0 ? Integer.MAX_VALUE : next, (long) s + runMax), s + left);
      file.writeFully(ByteBuffer.wrap(zeros, 0, (end - s) * pageSize), (long) s * pageSize);
      written.set(s, end);
      spare.set(s, end);
      spareCount += end - s;
      spareHint = Math.min(spareHint, s);
      if (end > fileSlots) {
        fileSlots = end;
      }
      left -= end - s;
      s = taken.nextClearBit(end);
    }
  }

  @GuardedBy("this")
  private long allocateSlotLocked() {
    assert Thread.holdsLock(this);
    if (spareCount > 0) {
      int s = spare.nextSetBit(spareHint);
      assert s >= 0 : "spare count " + spareCount + " but no spare slot at or above " + spareHint;
      spare.clear(s);
      spareCount--;
      spareHint = s + 1;
      used.set(s);
      return s;
    }
    int s = used.nextClearBit(allocHint);
    used.set(s);
    allocHint = s + 1;
    if (s >= fileSlots) {
      fileSlots = s + 1L;
    }
    return s;
  }

  /** Hands out a logical page id: a free one, or a new one. */
  public synchronized long allocatePage() {
    changes++;
    if (freeIdCount > 0) {
      return freeIds[--freeIdCount];
    }
    if (logicalPages == table.length) {
      table = Arrays.copyOf(table, table.length * 2);
    }
    return logicalPages++;
  }

  /** Frees logical page {@code id}; its slot is reused once no checkpoint references it. */
  public synchronized void freePage(long id) {
    changes++;
    long slot = table[(int) id];
    if (slot != 0 && !protectedSlots.get((int) slot)) {
      used.clear((int) slot);
      allocHint = Math.min(allocHint, (int) slot);
      if (written.get((int) slot)) {
        spare.set((int) slot);
        spareCount++;
        spareHint = Math.min(spareHint, (int) slot);
      }
    }
    table[(int) id] = 0;
    pushFreeIdLocked(id);
  }

  @GuardedBy("this")
  private void pushFreeIdLocked(long id) {
    assert Thread.holdsLock(this);
    if (freeIdCount == freeIds.length) {
      freeIds = Arrays.copyOf(freeIds, freeIdCount * 2);
    }
    freeIds[freeIdCount++] = id;
  }

  /** Logical pages in use (allocated and not free). */
  public synchronized long livePages() {
    return logicalPages - 1 - freeIdCount;
  }

  /** Page writes, allocations and frees since the last {@link #snapshotForCheckpoint()}. */
  public synchronized long changesSinceSnapshot() {
    return changes;
  }

  public synchronized long fileSlots() {
    return fileSlots;
  }

  // ---- checkpoint steps (docs/format/bplus.md section 4) ----

  /**
   * Step 2's end: copies the page table and protects the slots it names until the checkpoint is
   * durable or superseded. REQUIRES: writers paused and every dirty page written.
   */
  public synchronized long[] snapshotForCheckpoint() {
    changes = 0;
    trimFreeIdTailLocked();
    long[] snap = Arrays.copyOf(table, (int) logicalPages);
    for (int i = 1; i < snap.length; i++) {
      if (snap[i] != 0) {
        protectedSlots.set((int) snap[i]);
      }
    }
    return snap;
  }

  /**
   * Shortens the page table when its last logical ids are all free (after a collapse, most are),
   * so the checkpoint writes fewer PAGE_TABLE pages: the ids are handed out again from the end.
   * Leaves it as it is if one of them is allocated but not written yet (never the case when every
   * dirty page was written, but cheap to check).
   */
  @GuardedBy("this")
  private void trimFreeIdTailLocked() {
    assert Thread.holdsLock(this);
    long n = logicalPages;
    while (n > ROOT_ID + 1 && table[(int) (n - 1)] == 0) {
      n--;
    }
    if (n == logicalPages) {
      return;
    }
    int kept = 0;
    for (int i = 0; i < freeIdCount; i++) {
      if (freeIds[i] < n) {
        kept++;
      }
    }
    if (freeIdCount - kept != logicalPages - n) {
      return; // an id in the tail is allocated but has no slot yet
    }
    int w = 0;
    for (int i = 0; i < freeIdCount; i++) {
      if (freeIds[i] < n) {
        freeIds[w++] = freeIds[i];
      }
    }
    freeIdCount = w;
    logicalPages = n;
  }

  /**
   * Step 2's end: takes and protects the fresh slots of the page table {@code snap} (head first).
   * REQUIRES: writers paused, so that the spare slots it may take are promised to no change.
   */
  public synchronized long[] allocatePageTable(long[] snap) {
    int per = PageTablePage.capacity(pageSize);
    int entries = snap.length - 1;
    int pages = (entries + per - 1) / per;
    long[] slots = new long[pages];
    for (int i = 0; i < pages; i++) {
      slots[i] = allocateSlotLocked();
      protectedSlots.set((int) slots[i]);
    }
    return slots;
  }

  /** Step 3: writes the page table {@code snap} into {@code slots} ({@link #allocatePageTable}). */
  public void writePageTable(long[] snap, long[] slots) throws IOException {
    int per = PageTablePage.capacity(pageSize);
    int pages = slots.length;
    byte[] buf = new byte[pageSize];
    for (int i = 0; i < pages; i++) {
      long first = 1 + (long) i * per;
      int count = (int) Math.min(per, snap.length - first);
      PageTablePage.encode(buf, slots[i], i + 1 < pages ? slots[i + 1] : 0, first, snap, count);
      file.writeFully(ByteBuffer.wrap(buf), slots[i] * pageSize);
      markWritten(slots[i]);
    }
  }

  /** Steps 4 and 5: fsync, write the meta page, fsync. The checkpoint is durable on return. */
  public void writeMeta(MetaPage meta) throws IOException {
    sync();
    byte[] buf = new byte[pageSize];
    meta.encodeTo(buf);
    file.writeFully(ByteBuffer.wrap(buf), meta.slot() * pageSize);
    sync();
  }

  /** An fsync of the page file; its failure is never retried as "no space" (fsyncgate). */
  private void sync() throws IOException {
    try {
      file.sync();
    } catch (IOException e) {
      throw NoSpace.syncFailed(file.path().toString(), e);
    }
  }

  /**
   * A checkpoint failed before it became durable (for lack of space): the next one must write
   * again even if no page changes meanwhile.
   */
  public synchronized void checkpointFailed() {
    changes++;
  }

  /** Step 6: the new checkpoint is the durable one; slots only the old one used become free. */
  public synchronized void checkpointDone(long[] snap, long[] pageTableSlots) {
    recomputeSlotsLocked(snap, pageTableSlots);
  }

  /** A shorter free tail stays: a file that shrinks and grows back by a few slots gains nothing. */
  static final int MIN_TRUNCATE_SLOTS = 16;

  /**
   * Whether {@link #truncateFreeTail} would cut something with {@code keepSpare} spare slots kept
   * (a quick check before pausing writers for it).
   */
  public synchronized boolean tailCuttable(int keepSpare) throws IOException {
    long sizeSlots = (file.size() + pageSize - 1) / pageSize;
    return sizeSlots - keepLocked(keepSpare) >= MIN_TRUNCATE_SLOTS;
  }

  /** The slot the file may be cut at: past the highest used slot and {@code keepSpare} spare ones. */
  @GuardedBy("this")
  private long keepLocked(int keepSpare) {
    assert Thread.holdsLock(this);
    int keep = Math.max(PageFormat.META_SLOTS, used.length());
    long need = keepSpare + promised.get() - spare.get(0, keep).cardinality();
    for (int s = keep; need > 0; need--) {
      s = spare.nextSetBit(s);
      if (s < 0) {
        break;
      }
      keep = ++s;
    }
    return keep;
  }

  /**
   * After step 6: cuts the file after its highest used slot when at least {@link
   * #MIN_TRUNCATE_SLOTS} free slots follow it, keeping {@code keepSpare} spare slots (the dirty
   * pages of the buffer pool may need them). Runs under the monitor, so no slot above can be
   * handed out meanwhile (writes in flight go to used slots, which stay). A crash before or during
   * the truncation leaves a longer file, which opens the same: no checkpoint names a slot above.
   * REQUIRES: no checkpoint or backup runs meanwhile, and writers paused (a change in flight may
   * count on the spare slots it promised itself).
   */
  public synchronized void truncateFreeTail(int keepSpare) throws IOException {
    long keep = keepLocked(keepSpare);
    long size = file.size();
    long sizeSlots = (size + pageSize - 1) / pageSize;
    if (sizeSlots - keep < MIN_TRUNCATE_SLOTS) {
      return;
    }
    file.truncate(keep * pageSize);
    fileSlots = keep;
    written.clear((int) keep, Integer.MAX_VALUE);
    spare.clear((int) keep, Integer.MAX_VALUE);
    spareCount = spare.cardinality();
  }

  /**
   * The slot a compact layout of the file ends at: the live pages' durable images, their
   * rewritten copies and two page tables fit below it. -1 while the file is not more than twice
   * that long, so moving pages is not worth a checkpoint's time.
   */
  @GuardedBy("this")
  private long compactEndLocked() {
    assert Thread.holdsLock(this);
    int per = PageTablePage.capacity(pageSize);
    long live = logicalPages - 1 - freeIdCount;
    long tablePages = (logicalPages - 1 + per - 1) / per;
    long end = PageFormat.META_SLOTS + 2 * (live + tablePages) + MIN_TRUNCATE_SLOTS;
    return fileSlots > 2 * end ? end : -1;
  }

  /**
   * Live pages that a checkpoint should rewrite so that the file can shrink: in a file more than
   * twice its compact length, those whose durable image sits at or above the compact end (at most
   * {@code max} of them). Rewriting a page moves it to the lowest free slot (see {@link
   * #writePage}); a checkpoint writes its page table there too; once that checkpoint is durable,
   * {@link #truncateFreeTail} cuts the freed tail.
   */
  public synchronized long[] relocationCandidates(int max) {
    long end = compactEndLocked();
    if (end < 0) {
      return new long[0];
    }
    long[] ids = new long[Math.max(0, max)];
    int n = 0;
    for (int id = 1; id < logicalPages && n < ids.length; id++) {
      long slot = table[id];
      if (slot >= end && protectedSlots.get((int) slot)) {
        ids[n++] = id;
      }
    }
    return Arrays.copyOf(ids, n);
  }

  /**
   * Whether a checkpoint would move something down in a mostly free file: a live page ({@link
   * #relocationCandidates}) or the durable page table, which every checkpoint writes anew into the
   * lowest free slots. The checkpointer then runs a checkpoint even when no page changed.
   */
  public synchronized boolean tailMovable() {
    long end = compactEndLocked();
    if (end < 0) {
      return false;
    }
    for (long s : durablePageTableSlots) {
      if (s >= end) {
        return true;
      }
    }
    return relocationCandidates(1).length > 0;
  }

  @GuardedBy("this")
  private void recomputeSlotsLocked(long[] snap, long[] ptSlots) {
    assert Thread.holdsLock(this);
    if (snap != null) {
      durableTable = snap;
      durablePageTableSlots = ptSlots;
    }
    BitSet prot = new BitSet();
    prot.set(0, PageFormat.META_SLOTS);
    for (int i = 1; i < durableTable.length; i++) {
      if (durableTable[i] != 0) {
        prot.set((int) durableTable[i]);
      }
    }
    for (long s : durablePageTableSlots) {
      prot.set((int) s);
    }
    protectedSlots = prot;
    used.clear();
    used.or(prot);
    for (int i = 1; i < logicalPages; i++) {
      if (table[i] != 0) {
        used.set((int) table[i]);
      }
    }
    allocHint = PageFormat.META_SLOTS;
    spare.clear();
    spare.or(written);
    spare.andNot(used);
    spareCount = spare.cardinality();
    spareHint = PageFormat.META_SLOTS;
  }

  /** Syncs nothing: the file is synced by checkpoints only. Closes the file. */
  @Override
  public void close() throws IOException {
    file.close();
  }

  /**
   * Copies the file's bytes into {@code target} and syncs it. The copy holds the durable
   * checkpoint intact as long as no checkpoint runs meanwhile (its slots are never written);
   * other slots may be copied mid-write, which is harmless because no valid meta page names them.
   */
  public void copyTo(StorageFile target) throws IOException {
    long size = file.size();
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    for (long pos = 0; pos < size; ) {
      buf.clear();
      buf.limit((int) Math.min(buf.capacity(), size - pos));
      file.readFully(buf, pos);
      buf.flip();
      target.writeFully(buf, pos);
      pos += buf.limit();
    }
    target.sync();
  }

  /** The size of the file in bytes. */
  public long sizeBytes() throws IOException {
    return file.size();
  }
}
