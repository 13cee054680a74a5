package org.kvstore.bplus.buffer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.kvstore.bplus.page.PageFormat;

/**
 * A fixed-capacity cache of pages with pinning and CLOCK eviction (docs/format/bplus.md section
 * 5).
 *
 * <p>Design. At most {@code capacity = bufferBytes / pageSize} frames exist, allocated lazily. A
 * miss takes a fresh frame while fewer than {@code threshold * capacity} exist; past that it
 * evicts: the CLOCK hand skips pinned frames, gives referenced frames a second chance, and takes
 * the first other one, writing it back first when dirty (through {@link PageFile#writePage}, which
 * never overwrites a checkpointed slot). Frames between the threshold and the capacity are headroom
 * for when every candidate is pinned or is dirty during a checkpoint freeze. The pool never holds
 * more than {@code capacity} frames, whatever the table's size.
 *
 * <p>Invariants: a frame is in {@code frames by page} under page id p only if its {@code pageId}
 * is p or it is being loaded or evicted (pins == -1); an evicted frame is removed from the map
 * before its {@code pageId} changes; a frame with pins > 0 is never evicted.
 *
 * <p>Locking: the hit path takes no lock (a map lookup and a CAS on the pin count; the CLOCK bit
 * is written only when clear, the hit counter is a {@link LongAdder}); {@link #peek} (optimistic
 * readers) writes no shared memory at all on a hit.
 * {@code clockLock} guards frame allocation, the free-frame list and the hand; no I/O runs under
 * it. Page latches are taken only by callers, after pinning.
 *
 * <p>Thread safety: thread-safe.
 */
public final class BufferPool {
  private static final int MAX_WAIT_ROUNDS = 2_100; // about 2 s: 100 short waits, then 1 ms each

  private final PageFile file;
  private final int pageSize;
  private final int capacity;
  private final int softLimit;
  private final WriteBackGate gate;
  private final ConcurrentHashMap<Long, Frame> byPage;
  private final Frame[] frames;
  private final ReentrantLock clockLock = new ReentrantLock();
  @GuardedBy("clockLock")
  private int allocated;
  @GuardedBy("clockLock")
  private int hand;
  @GuardedBy("clockLock")
  private final ArrayDeque<Frame> freeFrames = new ArrayDeque<>();

  private final AtomicInteger dirtyFrames = new AtomicInteger();
  private final IntSupplier dirtyCount = dirtyFrames::get;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder writeBacks = new LongAdder();

  /**
   * @param bufferBytes the pool's size; at least 8 pages
   * @param threshold the occupancy (0, 1] past which misses evict
   */
  public BufferPool(PageFile file, long bufferBytes, double threshold, WriteBackGate gate) {
    this.file = file;
    this.pageSize = file.pageSize();
    long cap = bufferBytes / pageSize;
    if (cap < 8 || cap > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "buffer.size must hold 8 to 2^31 pages of " + pageSize + " bytes, was " + bufferBytes);
    }
    this.capacity = (int) cap;
    this.softLimit = Math.max(4, (int) Math.min(capacity, Math.floor(capacity * threshold)));
    this.gate = gate;
    this.frames = new Frame[capacity];
    this.byPage = new ConcurrentHashMap<>(Math.min(capacity, 1 << 16));
  }

  public int capacity() {
    return capacity;
  }

  public int pageSize() {
    return pageSize;
  }

  public PageFile file() {
    return file;
  }

  /** The frames whose page changed since it was last written (or read). */
  public int dirtyPages() {
    return dirtyFrames.get();
  }

  /**
   * Before a tree change that may dirty up to {@code pages} pages: makes sure that writing back
   * every dirty page, this change's included, needs no new disk space ({@link PageFile#reserve}).
   * The change calls {@link #release} with the same count when it ends. REQUIRES: the write gate
   * held shared.
   *
   * @throws IOException when the file cannot be given the spare slots (ENOSPC); nothing changed
   */
  public void reserve(int pages) throws IOException {
    file.reserve(pages, dirtyCount);
  }

  /** Ends a {@link #reserve}. */
  public void release(int pages) {
    file.release(pages);
  }

  /**
   * Pins page {@code pageId}, reading it from disk on a miss (checking its CRC).
   *
   * @throws org.kvstore.CorruptionException if the page read from disk is damaged
   * @throws FreedPageException if the page is free (a stale reference)
   */
  public PinnedPage fetch(long pageId) throws IOException {
    return acquire(pageId, false);
  }

  /**
   * The frame holding page {@code pageId} if it is resident, for an optimistic read (no pin, no
   * I/O, no shared write except the CLOCK reference bit when it is clear); null on a miss. The
   * caller takes a stamp, checks {@link Frame#pageId()} and validates (see {@link Frame}).
   */
  public Frame peek(long pageId) {
    Frame f = byPage.get(pageId);
    if (f != null) {
      if (!f.referenced) {
        f.referenced = true;
      }
      hits.increment(); // striped: threads add to their own cells under contention
    }
    return f;
  }

  /**
   * Pins a frame for a page just allocated by {@link PageFile#allocatePage()}, without reading
   * it; the caller latches it exclusively, initializes every byte and marks it dirty.
   */
  public PinnedPage newPage(long pageId) throws IOException {
    return acquire(pageId, true);
  }

  private PinnedPage acquire(long pageId, boolean fresh) throws IOException {
    Long key = pageId;
    int spins = 0;
    while (true) {
      Frame f = byPage.get(key);
      if (f != null) {
        if (f.tryPin()) {
          if (f.pageId == pageId) {
            if (f.loading) {
              // Wait for the loader, which holds the write lock while reading.
              f.latch.unlockRead(f.latch.readLock());
              if (f.pageId != pageId) {
                f.unpin();
                continue;
              }
            }
            if (!f.referenced) {
              f.referenced = true; // only when clear: no shared write on the hot hit path
            }
            hits.increment();
            return new PinnedPage(f, pageId);
          }
          f.unpin();
        }
        if (++spins > 100) {
          Thread.yield();
        } else {
          Thread.onSpinWait();
        }
        continue;
      }
      Frame nf = obtainFrame();
      long ws = nf.latch.writeLock();
      nf.pageId = pageId;
      nf.loading = true;
      Frame raced = byPage.putIfAbsent(key, nf);
      if (raced != null) {
        nf.pageId = 0;
        nf.loading = false;
        nf.latch.unlockWrite(ws);
        releaseFrame(nf);
        continue;
      }
      try {
        if (fresh) {
          Arrays.fill(nf.data, (byte) 0);
        } else {
          misses.increment();
          if (!file.readPage(pageId, nf.data)) {
            throw new FreedPageException(pageId);
          }
        }
      } catch (IOException | RuntimeException | Error e) {
        // Other threads may have pinned the frame while it was mapped and now wait for its latch:
        // it must not be free-listed (that would overwrite their pins). Unmapped and unpinned, it
        // goes back to the CLOCK as an empty frame; the waiters see the page id change and retry.
        byPage.remove(key, nf);
        nf.pageId = 0;
        nf.markClean();
        nf.referenced = false;
        nf.loading = false;
        nf.latch.unlockWrite(ws);
        nf.unpin();
        throw e;
      }
      nf.markClean();
      nf.referenced = true;
      nf.loading = false;
      nf.latch.unlockWrite(ws);
      return new PinnedPage(nf, pageId);
    }
  }

  /** Returns an unmapped frame pinned once (pins == 1) for the caller. */
  private Frame obtainFrame() throws IOException {
    for (int round = 0; ; round++) {
      Frame victim = null;
      clockLock.lock();
      try {
        Frame free = freeFrames.poll(); // free-listed frames have pins == -1
        if (free != null) {
          free.pinOnceForCaller();
          return free;
        }
        if (allocated < softLimit) {
          Frame f = new Frame(allocated, pageSize, dirtyFrames);
          frames[allocated++] = f;
          f.pinOnceForCaller();
          return f;
        }
        victim = pickVictimLocked();
        if (victim == null && allocated < capacity) {
          Frame f = new Frame(allocated, pageSize, dirtyFrames);
          frames[allocated++] = f;
          f.pinOnceForCaller();
          return f;
        }
      } finally {
        clockLock.unlock();
      }
      if (victim != null) {
        if (evict(victim)) {
          victim.pinOnceForCaller();
          return victim;
        }
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
        continue;
      }
      if (round > MAX_WAIT_ROUNDS) {
        throw new IOException(
            "buffer pool of " + capacity + " pages of " + pageSize + " bytes is exhausted: every page"
                + " is pinned (too many open cursors or concurrent operations for buffer.size)");
      }
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(round < 100 ? 10 : 1000));
    }
  }

  /** Moves the hand to a frame it can take (pins set to -1), or returns null after two sweeps. */
  @GuardedBy("clockLock")
  private Frame pickVictimLocked() {
    assert clockLock.isHeldByCurrentThread();
    int n = allocated;
    for (int step = 0; step < 3 * n; step++) {
      Frame f = frames[hand];
      hand = hand + 1 == n ? 0 : hand + 1;
      if (f.pins() != 0) { // pinned, or -1: free-listed or being evicted
        continue;
      }
      if (f.referenced) {
        f.referenced = false;
        continue;
      }
      if (f.tryLockOut()) {
        return f;
      }
    }
    return null;
  }

  /**
   * Writes the victim back if dirty and unmaps it. Returns false (frame released back to its page)
   * when a dirty victim cannot be written now because a checkpoint holds the gate.
   */
  private boolean evict(Frame f) throws IOException {
    if (f.dirty) {
      if (!gate.tryEnter()) {
        f.unlockOut();
        return false;
      }
      try {
        file.writePage(f.pageId, f.data);
        writeBacks.increment();
        f.markClean();
      } catch (IOException | RuntimeException e) {
        f.unlockOut();
        throw e;
      } finally {
        gate.exit();
      }
    }
    // The write lock invalidates the stamps of optimistic readers of the old page (pins == -1, so
    // no one holds the latch and this never waits).
    long ws = f.latch.writeLock();
    try {
      long old = f.pageId;
      if (old != 0) {
        byPage.remove(old, f);
        evictions.increment();
      }
      f.pageId = 0;
    } finally {
      f.latch.unlockWrite(ws);
    }
    return true;
  }

  private void releaseFrame(Frame f) {
    clockLock.lock();
    try {
      f.markFree(); // neither pinnable nor a CLOCK candidate while free-listed
      f.markClean();
      freeFrames.add(f);
    } finally {
      clockLock.unlock();
    }
  }

  /**
   * Drops page {@code pageId} from the pool if present (after it was freed): its frame is marked
   * clean so it is never written back. Safe against concurrent stale readers, who see a zeroed page.
   */
  public void discard(long pageId) {
    Frame f = byPage.get(pageId);
    if (f == null || !f.tryPin()) {
      return;
    }
    try {
      if (f.pageId != pageId) {
        return;
      }
      long ws = f.latch.writeLock();
      try {
        Arrays.fill(f.data, 0, PageFormat.PAGE_HEADER_BYTES, (byte) 0);
        f.markClean();
      } finally {
        f.latch.unlockWrite(ws);
      }
    } finally {
      f.unpin();
    }
  }

  /**
   * Marks the pages {@code ids} dirty without changing them, so that the next write-back writes
   * them again (into the lowest free slot when their slot is protected: that is how a checkpoint
   * moves pages down in the file). REQUIRES: writers paused (they stay dirty until written back),
   * and room in the pool for them.
   */
  public void rewrite(long[] ids) throws IOException {
    for (long id : ids) {
      try (PinnedPage p = fetch(id).latchExclusive()) {
        p.markDirty();
      }
    }
  }

  /**
   * Writes every dirty page back. REQUIRES: writers paused (a checkpoint's freeze step), so pages
   * do not change meanwhile. Returns the number of pages written.
   */
  public int writeBackAll() throws IOException {
    int n;
    clockLock.lock();
    try {
      n = allocated;
    } finally {
      clockLock.unlock();
    }
    int written = 0;
    for (int i = 0; i < n; i++) {
      Frame f = frames[i];
      if (!pinIfDirty(f)) {
        continue;
      }
      try {
        long id = f.pageId;
        if (f.dirty && id != 0) {
          long rs = f.latch.readLock();
          try {
            file.writePage(id, f.data);
            f.markClean();
            written++;
          } finally {
            f.latch.unlockRead(rs);
          }
        }
      } finally {
        f.unpin();
      }
    }
    return written;
  }

  /**
   * Pins {@code f} if it is dirty; false once it is clean. A dirty frame that cannot be pinned is
   * locked out by an eviction that found the write gate closed and is about to give it back: skipping
   * it would leave its page out of the checkpoint, so this waits for it.
   */
  private static boolean pinIfDirty(Frame f) {
    for (int spins = 0; f.dirty; spins++) {
      if (f.tryPin()) {
        return true;
      }
      if (spins > 100) {
        Thread.yield();
      } else {
        Thread.onSpinWait();
      }
    }
    return false;
  }

  /** Statistics at one moment. */
  public Stats stats() {
    int n;
    clockLock.lock();
    try {
      n = allocated;
    } finally {
      clockLock.unlock();
    }
    int dirty = 0;
    int pinned = 0;
    for (int i = 0; i < n; i++) {
      if (frames[i].dirty) {
        dirty++;
      }
      if (frames[i].pins() > 0) {
        pinned++;
      }
    }
    return new Stats(capacity, n, byPage.size(), dirty, pinned, hits.sum(), misses.sum(),
        evictions.sum(), writeBacks.sum());
  }

  /**
   * Buffer pool counters.
   *
   * @param frames frames allocated (never above capacity)
   * @param resident pages currently cached
   */
  public record Stats(
      int capacity, int frames, int resident, int dirty, int pinned, long hits, long misses,
      long evictions, long writeBacks) {
    public long hitRatePermille() {
      long total = hits + misses;
      return total == 0 ? 1000 : hits * 1000 / total;
    }
  }
}
