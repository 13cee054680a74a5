package org.kvstore.lsm.sstable;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memory of the block cache: decoded data blocks, and the rows point reads found in them (a
 * RocksDB-style row cache in the same memory), bounded in bytes, shared by every table that
 * holds a {@link BlockCache} view of it (RocksDB's one block cache shared by the column families of
 * a process). A store's LSM tables share one, sized by {@code StoreOptions.blockCacheBytes}; a
 * table given its own {@code block.cache.size} has one of its own. A block is keyed by its table's
 * view, file number and offset, so two tables' files with the same number never meet. A row is
 * keyed by its table's view, file number and user key: the newest entry of that key in that file,
 * which never changes (files are immutable), so no write has to invalidate it.
 *
 * <p><b>Memory outside the collected heap.</b> Block contents and row values live in direct
 * memory, in fixed-size regions allocated as needed up to the capacity, never more; only a small
 * index entry per block or row is a heap object. A cache that turns over (flushes and compactions
 * fill it, their inputs' blocks leave it) therefore makes no old-generation garbage for the
 * collector to copy or compact. A reader gets a copy: {@link #copyBlock} copies the block into the
 * reader's {@link BlockBuffer}, {@link #getRow} the value into a new array.
 *
 * <p><b>Placement and eviction.</b> The cache is split into shards (up to 16, fewer for small
 * caches), each with its own regions written in turn, as a log: a block or row is appended to the
 * shard's current region, and when it is full the shard takes the oldest region back. Taking a
 * region back is the CLOCK hand's sweep: each live entry in it that was read since it was placed
 * (its use count, raised by hits up to {@value #MAX_USES}, is above zero) is moved to the front of
 * the region with its count lowered by one; the others are evicted. Entries read often survive
 * many sweeps; a stream read once passes through. A block larger than a region is not cached.
 *
 * <p><b>Lookups take no lock.</b> Each shard's index is an open-addressing hash table (linear
 * probing, immutable entries, no per-lookup allocation). An entry names its region, position and
 * the region's generation when it was written there; taking a region back raises the generation
 * before anything in it is overwritten. A reader checks the generation before and after its copy
 * (a sequence lock): a copy that raced with the region's reuse is discarded as a miss, which reads
 * the file. Region memory is never freed while an entry can name it: a cache dropped by its last
 * view leaves its regions to the collector, which frees their direct memory once no reader holds
 * one.
 *
 * <p><b>Admission</b>: once the cache is full, a block read by a point lookup or a scan is admitted
 * only when it was asked for before within the recent window ({@link #admit}, a "doorkeeper" bit
 * set as in TinyLFU), so a stream of reads over data much larger than the cache does not replace a
 * cached block on nearly every read.
 *
 * <p>Thread safety: thread-safe. Lookups take no lock (above); changes to a shard (its index, its
 * regions' contents and write positions) are guarded by the shard's monitor, and no file I/O
 * happens under it. The doorkeeper bits are written without a lock: a lost update only admits or
 * rejects one block wrongly.
 */
public final class SharedBlockCache {
  private static final Logger LOG = LoggerFactory.getLogger(SharedBlockCache.class);
  private static final int MAX_SHARDS = 16;
  /** Bytes per shard below which the cache has fewer shards (at least one). */
  private static final long MIN_SHARD_BYTES = 4L << 20;
  private static final int MAX_REGION_BYTES = 1 << 20;
  private static final int MIN_REGION_BYTES = 8 << 10;
  private static final int MAX_USES = 3;
  /** Direct memory held by the regions of every cache in this JVM. */
  private static final AtomicLong OFF_HEAP_BYTES = new AtomicLong();

  private final Shard[] shards;
  private final int shardMask;
  private final long capacityBytes;
  private final long[] doorkeeper;
  private final int doorkeeperMask;
  private final AtomicLong doorkeeperAdds = new AtomicLong();
  private final AtomicLong views = new AtomicLong();
  /** Views made and not yet closed; the regions are dropped when it falls to zero. */
  private final AtomicLong openViews = new AtomicLong();

  public SharedBlockCache(long capacityBytes) {
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("block cache capacity must be >= 0, was " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
    // About 8 bits per block the cache holds (4 KiB blocks), between 64 Ki and 8 Mi bits.
    long bits = Long.highestOneBit(Math.max(1L << 16, Math.min(1L << 23, capacityBytes / 512)));
    this.doorkeeper = new long[(int) (bits >>> 6)];
    this.doorkeeperMask = (int) bits - 1;
    int n = (int) Long.highestOneBit(Math.max(1, Math.min(MAX_SHARDS, capacityBytes / MIN_SHARD_BYTES)));
    this.shards = new Shard[n];
    this.shardMask = n - 1;
    for (int i = 0; i < n; i++) {
      shards[i] = new Shard(capacityBytes / n);
    }
  }

  /**
   * A new view for one table: its blocks (and rows, when {@code cacheRows}), hit and miss counts,
   * and bytes held. The table closes it ({@link BlockCache#close}) when it closes.
   */
  public BlockCache newView(boolean cacheRows) {
    return new BlockCache(this, views.incrementAndGet() * 0xD6E8FEB86659FD93L, cacheRows);
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** The direct memory held by the regions of every block cache in this JVM, in bytes. */
  public static long offHeapBytesAllocated() {
    return OFF_HEAP_BYTES.get();
  }

  /** The direct memory this cache's regions hold, in bytes: at most {@link #capacityBytes()}. */
  public long offHeapBytes() {
    return sumOverShards(s -> s.allocatedBytes);
  }

  /** A well-mixed 64-bit hash of a block's address; shard and slot come from different bits. */
  private static long hash(BlockCache view, long fileNum, long offset) {
    long h = ((fileNum + view.salt) * 0x9E3779B97F4A7C15L) ^ offset;
    h *= 0xC2B2AE3D27D4EB4FL;
    return h ^ (h >>> 29);
  }

  private Shard shard(long h) {
    return shards[(int) (h >>> 60) & shardMask];
  }

  /**
   * Copies the cached block into {@code into} and returns its length, or returns -1 when it is not
   * cached (or was being replaced while copied). Lock-free.
   */
  int copyBlock(BlockCache view, long fileNum, long offset, BlockBuffer into) {
    long h = hash(view, fileNum, offset);
    Entry e = shard(h).find(h, view, fileNum, offset, null);
    if (e == null) {
      return -1;
    }
    Region r = e.region;
    if (r.generation != e.generation) {
      return -1;
    }
    byte[] dst = into.ensure(e.len);
    r.memory.get(e.pos, dst, 0, e.len);
    return r.stillHolds(e) ? e.len : -1;
  }

  /**
   * The cached newest entry of {@code userKey} in file {@code fileNum} with a value array of its
   * own, or {@code null}. Lock-free.
   *
   * @param keyHash the key's 64-bit hash ({@code BloomFormat.hash})
   */
  Lookup getRow(BlockCache view, long fileNum, long keyHash, byte[] userKey) {
    long h = hash(view, fileNum, keyHash);
    Entry e = shard(h).find(h, view, fileNum, keyHash, userKey);
    if (e == null) {
      return null;
    }
    Region r = e.region;
    if (r.generation != e.generation) {
      return null;
    }
    byte[] value = new byte[e.len];
    r.memory.get(e.pos, value, 0, e.len);
    return r.stillHolds(e) ? new Lookup(e.seqNum, e.kind, value, e.version, e.expiresAt) : null;
  }

  /** Whether the row of {@code userKey} in file {@code fileNum} is cached. Lock-free. */
  boolean hasRow(BlockCache view, long fileNum, long keyHash, byte[] userKey) {
    long h = hash(view, fileNum, keyHash);
    return shard(h).find(h, view, fileNum, keyHash, userKey) != null;
  }

  /**
   * Whether a block just read from the file should be put in the cache: always while the cache has
   * memory it has not yet taken; once all of it is in use, only when the block was asked for before
   * within the window (its two doorkeeper bits are set). Otherwise sets its bits; the bits are
   * cleared after about a cache's worth of blocks has been recorded.
   */
  boolean admit(BlockCache view, long fileNum, long offset) {
    if (capacityBytes <= 0) {
      return false;
    }
    if (allocatedBytesApprox() < capacityBytes - (capacityBytes >>> 4)) {
      return true;
    }
    long h = hash(view, fileNum, offset);
    int b1 = (int) h & doorkeeperMask;
    int b2 = (int) (h >>> 32) & doorkeeperMask;
    long w1 = doorkeeper[b1 >>> 6];
    long w2 = doorkeeper[b2 >>> 6];
    if ((w1 & (1L << b1)) != 0 && (w2 & (1L << b2)) != 0) {
      return true;
    }
    doorkeeper[b1 >>> 6] |= 1L << b1;
    doorkeeper[b2 >>> 6] |= 1L << b2;
    if (doorkeeperAdds.incrementAndGet() > (doorkeeperMask + 1L) / 8) {
      doorkeeperAdds.set(0);
      Arrays.fill(doorkeeper, 0L);
    }
    return false;
  }

  /**
   * The direct memory the shards have taken, read without locks. Once the cache is full it stays
   * full: regions are reused, and the bytes of live entries in them (below it by the regions'
   * unwritten tails and entries evicted since) are no measure of room.
   */
  private long allocatedBytesApprox() {
    long n = 0;
    for (Shard s : shards) {
      n += s.allocatedBytes;
    }
    return n;
  }

  /**
   * Puts (or replaces) the block {@code contents[0, length)}, copying it; taking regions back as
   * the shard needs room. A cache of capacity 0 holds nothing, and a block larger than a region is
   * not cached.
   */
  void put(BlockCache view, long fileNum, long offset, byte[] contents, int length) {
    if (capacityBytes <= 0) {
      return;
    }
    long h = hash(view, fileNum, offset);
    Shard s = shard(h);
    synchronized (s) {
      s.put(h, view, fileNum, offset, null, null, contents, length);
    }
  }

  /**
   * Puts (or replaces) a row: the newest entry of {@code userKey} in file {@code fileNum}. The value
   * is copied; the key array is kept and may not change afterwards.
   */
  void putRow(BlockCache view, long fileNum, long keyHash, byte[] userKey, Lookup row) {
    if (capacityBytes <= 0) {
      return;
    }
    long h = hash(view, fileNum, keyHash);
    Shard s = shard(h);
    synchronized (s) {
      s.put(h, view, fileNum, keyHash, userKey, row, row.value(), row.value().length);
    }
  }

  /** Drops the view's blocks of the files in {@code fileNums} (sorted), in one pass. */
  void evictFiles(BlockCache view, long[] fileNums) {
    for (Shard s : shards) {
      synchronized (s) {
        s.remove(view, fileNums);
      }
    }
  }

  /** Drops every block of the view. */
  void evictView(BlockCache view) {
    for (Shard s : shards) {
      synchronized (s) {
        s.remove(view, null);
      }
    }
  }

  /** Counts a view made over this cache (by its constructor). */
  void viewOpened() {
    openViews.incrementAndGet();
  }

  /**
   * Drops every block of a closing view; when no view is left open, drops the regions too (their
   * direct memory goes when the collector finds them unreachable).
   */
  void closeView(BlockCache view) {
    evictView(view);
    if (openViews.decrementAndGet() == 0) {
      for (Shard s : shards) {
        synchronized (s) {
          s.dropRegionsIfEmpty();
        }
      }
    }
  }

  /** The bytes held for the view's blocks of the files in {@code fileNums} (sorted). */
  long cachedBytes(BlockCache view, long[] fileNums) {
    return sumOverShards(s -> s.bytesOf(view, fileNums));
  }

  /** The bytes held, for all views: the live blocks' and rows' bytes in the regions. */
  public long usedBytes() {
    return sumOverShards(s -> s.used);
  }

  /** Blocks and rows held by the view. */
  long size(BlockCache view) {
    return sumOverShards(s -> s.countOf(view));
  }

  /** The sum of {@code f} over the shards, each read under its monitor. */
  private long sumOverShards(ToLongFunction<Shard> f) {
    long n = 0;
    for (Shard s : shards) {
      synchronized (s) {
        n += f.applyAsLong(s);
      }
    }
    return n;
  }

  /**
   * Region bytes a row is charged beyond its value and key bytes: its index entry and key array
   * are on the heap, and charging them here bounds the heap that many small rows can hold by the
   * cache's size.
   */
  static final int ROW_OVERHEAD = 160;

  /** Whether an entry of {@code view} with {@code fileNum} is selected ({@code null}: all of it). */
  private static boolean selected(Entry e, BlockCache view, long[] fileNums) {
    return e.view == view && (fileNums == null || Arrays.binarySearch(fileNums, e.fileNum) >= 0);
  }

  /**
   * One region of a shard's direct memory, written from the front as a log.
   *
   * <p>Thread safety: {@link #memory} is read without a lock by readers who check
   * {@link #generation} around their copy; everything else is changed only under the monitor of
   * the shard that owns the region.
   */
  private static final class Region {
    final ByteBuffer memory;
    /** Raised (and fenced) before the region is rewritten from the front. */
    volatile long generation;
    /** The region's entries in the order of their positions; may include ones no longer indexed. */
    Entry[] entries = new Entry[64];
    int entryCount;
    int writePos;

    Region(int bytes) {
      this.memory = ByteBuffer.allocateDirect(bytes);
    }

    /** Whether a copy of {@code e} just made from {@link #memory} is intact. */
    boolean stillHolds(Entry e) {
      VarHandle.acquireFence(); // the copy's loads come before the generation's second read
      return generation == e.generation;
    }

    void add(Entry e) {
      if (entryCount == entries.length) {
        entries = Arrays.copyOf(entries, entryCount * 2);
      }
      entries[entryCount++] = e;
    }
  }

  /**
   * One cached block or row, as the index holds it. A block's key is its offset (and
   * {@link #rowKey} is {@code null}); a row's is the user key's hash and the user key, and it
   * carries the row's sequence number, kind, version and expiry. Its bytes are {@code len} bytes
   * at {@code pos} of {@code region}, valid while the region's generation is {@code generation}.
   * Immutable but for {@link #uses}, which readers raise and region sweeps lower without a lock (a
   * lost update only changes when it is evicted).
   */
  private static final class Entry {
    final long hash;
    final BlockCache view;
    final long fileNum;
    /** A block's offset, or a row's key hash. */
    final long offset;
    /** A row's user key; {@code null} for a block. */
    final byte[] rowKey;
    final Region region;
    final int pos;
    final int len;
    /** The region bytes charged: {@link #len}, and for a row also {@link #ROW_OVERHEAD} and its key. */
    final int space;
    final long generation;
    final long seqNum;
    final ValueKind kind;
    final long version;
    final long expiresAt;
    int uses;

    Entry(long hash, BlockCache view, long fileNum, long offset, byte[] rowKey, Lookup row,
        Region region, int pos, int len, long generation) {
      this.hash = hash;
      this.view = view;
      this.fileNum = fileNum;
      this.offset = offset;
      this.rowKey = rowKey;
      this.region = region;
      this.pos = pos;
      this.len = len;
      this.space = rowKey == null ? len : len + ROW_OVERHEAD + rowKey.length;
      this.generation = generation;
      this.seqNum = row == null ? 0 : row.seqNum();
      this.kind = row == null ? null : row.kind();
      this.version = row == null ? 0 : row.version();
      this.expiresAt = row == null ? 0 : row.expiresAt();
    }

    /** This entry at {@code newPos} of its region, in the region's current generation. */
    private Entry(Entry e, int newPos, long newGeneration) {
      this.hash = e.hash;
      this.view = e.view;
      this.fileNum = e.fileNum;
      this.offset = e.offset;
      this.rowKey = e.rowKey;
      this.region = e.region;
      this.pos = newPos;
      this.len = e.len;
      this.space = e.space;
      this.generation = newGeneration;
      this.seqNum = e.seqNum;
      this.kind = e.kind;
      this.version = e.version;
      this.expiresAt = e.expiresAt;
    }

    boolean is(BlockCache v, long f, long o, byte[] k) {
      // File and offset (a row's key hash) in one test: a probe that meets another file's entry
      // then takes the branch that entries of the same file with other offsets take all the time.
      // Tested apart, that branch was never taken until a flush or compaction added a new file's
      // entries, and the trap it then hit recompiled every method the probe is inlined in (the
      // point-read path among them) in the middle of a run.
      if (((fileNum ^ f) | (offset ^ o)) != 0 || view != v) {
        return false;
      }
      return k == null ? rowKey == null : rowKey != null && Arrays.equals(rowKey, k);
    }
  }

  /**
   * One shard: an index (an open-addressing table of at most half load) over entries in the
   * shard's regions.
   *
   * <p>Thread safety: {@link #find} reads without a lock; every other method requires the shard's
   * monitor. A lock-free reader reads {@link #table} (volatile; a resize publishes a new array) and
   * then slots; an entry is immutable and published after its bytes are written (a release fence
   * before the slot is set, an acquire fence after the reader reads it), so a reader finds either
   * the right entry or, when a concurrent removal shifts the probe run it walks, nothing (a miss,
   * which reads the file). Every table keeps free slots, so a probe always ends. A view's byte
   * count is changed only under the monitor of the shard holding the entry.
   */
  private static final class Shard {
    private static final int MIN_SLOTS = 64;
    final int regionBytes;
    volatile Entry[] table = new Entry[MIN_SLOTS];
    @GuardedBy("this")
    int count;
    @GuardedBy("this")
    final Region[] regions;
    @GuardedBy("this")
    int regionCount;
    /** Regions the shard may take: its share of the capacity, less if direct memory ran out. */
    @GuardedBy("this")
    int regionLimit;
    /** Index of the region being written; -1 before the first. */
    @GuardedBy("this")
    int current = -1;
    /** Written under the monitor. */
    volatile long allocatedBytes;
    /** Scratch for moving entries within a region, grown as needed. */
    @GuardedBy("this")
    byte[] moveBuffer = new byte[16 << 10];
    /** Written under the monitor. */
    volatile long used;

    Shard(long capacity) {
      long region = Math.min(MAX_REGION_BYTES, Math.max(Math.min(MIN_REGION_BYTES, capacity), capacity / 16));
      this.regionBytes = (int) Math.max(1, region);
      this.regions = new Region[(int) Math.max(1, capacity / regionBytes)];
      this.regionLimit = regions.length;
    }

    /** The entry of the block ({@code rowKey == null}) or row, or {@code null}. Lock-free. */
    Entry find(long h, BlockCache view, long fileNum, long offset, byte[] rowKey) {
      Entry[] t = table;
      int mask = t.length - 1;
      for (int i = (int) h & mask; ; i = (i + 1) & mask) {
        Entry e = t[i];
        if (e == null) {
          return null;
        }
        if (e.is(view, fileNum, offset, rowKey)) {
          VarHandle.acquireFence(); // pairs with the release fence before the slot was set
          if (e.uses < MAX_USES) {
            e.uses++;
          }
          return e;
        }
      }
    }

    /** The slot holding the address, or the empty slot where it would go. Requires the monitor. */
    private static int slotOf(Entry[] t, long hash, BlockCache view, long fileNum, long offset, byte[] rowKey) {
      int mask = t.length - 1;
      int i = (int) hash & mask;
      while (t[i] != null && !t[i].is(view, fileNum, offset, rowKey)) {
        i = (i + 1) & mask;
      }
      return i;
    }

    /** The slot holding exactly {@code e}, or -1 when it is no longer indexed. Requires the monitor. */
    private static int slotOf(Entry[] t, Entry e) {
      int mask = t.length - 1;
      for (int i = (int) e.hash & mask; t[i] != null; i = (i + 1) & mask) {
        if (t[i] == e) {
          return i;
        }
      }
      return -1;
    }

    /** Copies the bytes into a region and indexes them, replacing the entry of the same address. */
    @GuardedBy("this")
    void put(long h, BlockCache view, long fileNum, long offset, byte[] rowKey, Lookup row, byte[] bytes, int len) {
      int space = rowKey == null ? len : len + ROW_OVERHEAD + rowKey.length;
      Region r = regionWithRoom(space);
      if (r == null) {
        return;
      }
      int pos = r.writePos;
      r.memory.put(pos, bytes, 0, len);
      r.writePos = pos + space;
      Entry e = new Entry(h, view, fileNum, offset, rowKey, row, r, pos, len, r.generation);
      r.add(e);
      Entry[] t = table;
      int i = slotOf(t, h, view, fileNum, offset, rowKey);
      long delta = space;
      if (t[i] != null) {
        delta -= t[i].space;
      } else {
        if ((count + 1) * 2 > t.length) {
          t = resize(t.length * 2);
          i = slotOf(t, h, view, fileNum, offset, rowKey);
        }
        count++;
      }
      used += delta;
      view.addBytes(delta);
      VarHandle.releaseFence(); // the bytes and the entry before the slot that publishes them
      t[i] = e;
    }

    /**
     * A region with {@code len} free bytes at its write position: the current one, a new one while
     * the shard is under its capacity, or the oldest taken back ({@link #takeBack}). {@code null}
     * when {@code len} does not fit in a region.
     */
    @GuardedBy("this")
    private Region regionWithRoom(int len) {
      if (len > regionBytes) {
        return null;
      }
      if (current >= 0 && regions[current].writePos + len <= regionBytes) {
        return regions[current];
      }
      if (regionCount < regionLimit) {
        Region fresh = newRegion();
        if (fresh == null) {
          return regionCount == 0 ? null : regionWithRoom(len);
        }
        regions[regionCount] = fresh;
        allocatedBytes += regionBytes;
        OFF_HEAP_BYTES.addAndGet(regionBytes);
        current = regionCount++;
        return regions[current];
      }
      // Each sweep lowers the use count of every entry it keeps, so after MAX_USES + 1 sweeps of
      // all regions none is kept and every region is empty.
      for (int sweeps = 0; sweeps < (MAX_USES + 2) * regionCount; sweeps++) {
        current = (current + 1) % regionCount;
        Region r = regions[current];
        takeBack(r);
        if (r.writePos + len <= regionBytes) {
          return r;
        }
      }
      return null;
    }

    /**
     * A new region, or {@code null} when the JVM's direct memory limit ({@code
     * -XX:MaxDirectMemorySize}, by default the maximum heap) has no room for it: the shard then
     * keeps the regions it has (logged once per shard).
     */
    @GuardedBy("this")
    private Region newRegion() {
      try {
        return new Region(regionBytes);
      } catch (OutOfMemoryError e) {
        regionLimit = regionCount;
        LOG.warn("block cache: no direct memory for another region of {} bytes ({}); a cache shard "
                + "keeps the {} bytes it has: lower the block cache size or raise -XX:MaxDirectMemorySize",
            regionBytes, e.getMessage(), allocatedBytes);
        return null;
      }
    }

    /**
     * Rewrites region {@code r} from the front: its live entries that were read since they were
     * placed move to the front, one use fewer; the rest are evicted. The generation is raised before
     * any byte moves, so readers of the old positions discard their copies.
     */
    @GuardedBy("this")
    private void takeBack(Region r) {
      r.generation = r.generation + 1;
      VarHandle.fullFence(); // the new generation before any byte of the region changes
      long gen = r.generation;
      Entry[] es = r.entries;
      int n = r.entryCount;
      int kept = 0;
      int writePos = 0;
      Entry[] t = table;
      for (int k = 0; k < n; k++) {
        Entry e = es[k];
        es[k] = null;
        int slot = slotOf(t, e);
        if (slot < 0) {
          continue; // replaced or removed since: its bytes are dead
        }
        if (e.uses > 0) {
          if (e.pos != writePos) {
            if (moveBuffer.length < e.len) {
              moveBuffer = new byte[e.len];
            }
            r.memory.get(e.pos, moveBuffer, 0, e.len);
            r.memory.put(writePos, moveBuffer, 0, e.len);
          }
          Entry moved = new Entry(e, writePos, gen);
          moved.uses = e.uses - 1;
          writePos += e.space;
          es[kept++] = moved;
          VarHandle.releaseFence();
          t[slot] = moved;
        } else {
          removeAt(t, slot);
        }
      }
      r.entryCount = kept;
      r.writePos = writePos;
    }

    /** Drops the regions once nothing is indexed (the cache's last view closed). */
    @GuardedBy("this")
    void dropRegionsIfEmpty() {
      if (count != 0) {
        return;
      }
      Arrays.fill(regions, null);
      regionCount = 0;
      regionLimit = regions.length;
      current = -1;
      OFF_HEAP_BYTES.addAndGet(-allocatedBytes);
      allocatedBytes = 0;
    }

    /**
     * Empties slot {@code i} and shifts later entries of its probe run back (no tombstones).
     * Requires the monitor.
     */
    @GuardedBy("this")
    private void removeAt(Entry[] t, int i) {
      int mask = t.length - 1;
      long bytes = t[i].space;
      used -= bytes;
      t[i].view.addBytes(-bytes);
      count--;
      int hole = i;
      int j = i;
      while (true) {
        j = (j + 1) & mask;
        Entry e = t[j];
        if (e == null) {
          break;
        }
        int home = (int) e.hash & mask;
        // Move j into the hole unless its home lies cyclically in (hole, j].
        boolean homeAfterHole = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!homeAfterHole) {
          t[hole] = e;
          hole = j;
        }
      }
      t[hole] = null;
    }

    /** Requires the monitor. */
    @GuardedBy("this")
    private Entry[] resize(int slots) {
      Entry[] old = table;
      Entry[] t = new Entry[slots];
      for (Entry e : old) {
        if (e != null) {
          t[slotOf(t, e.hash, e.view, e.fileNum, e.offset, e.rowKey)] = e;
        }
      }
      table = t;
      return t;
    }

    /**
     * Removes the view's entries of {@code fileNums} ({@code null}: all) from the index; their
     * bytes stay in their regions until the regions are taken back. Requires the monitor.
     */
    @GuardedBy("this")
    void remove(BlockCache view, long[] fileNums) {
      Entry[] t = table;
      int i = 0;
      while (i < t.length) {
        if (t[i] != null && selected(t[i], view, fileNums)) {
          // Re-examines slot i, which may now hold a shifted entry. Entries only move backwards
          // into the hole, so none moves from the unscanned part into the scanned one.
          removeAt(t, i);
        } else {
          i++;
        }
      }
    }

    /** Requires the monitor. */
    long bytesOf(BlockCache view, long[] fileNums) {
      long n = 0;
      for (Entry e : table) {
        if (e != null && selected(e, view, fileNums)) {
          n += e.space;
        }
      }
      return n;
    }

    /** Requires the monitor. */
    long countOf(BlockCache view) {
      long n = 0;
      for (Entry e : table) {
        if (e != null && e.view == view) {
          n++;
        }
      }
      return n;
    }
  }
}
