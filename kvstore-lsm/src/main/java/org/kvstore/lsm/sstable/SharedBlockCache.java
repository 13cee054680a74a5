package org.kvstore.lsm.sstable;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import org.kvstore.lsm.key.Lookup;

/**
 * The memory of the block cache: decoded data blocks, and the rows point reads found in them (a
 * RocksDB-style row cache in the same memory), bounded in bytes, shared by every table that
 * holds a {@link BlockCache} view of it (RocksDB's one block cache shared by the column families of
 * a process). A store's LSM tables share one, sized by {@code StoreOptions.blockCacheBytes}; a
 * table given its own {@code block.cache.size} has one of its own. A block is keyed by its table's
 * view, file number and offset, so two tables' files with the same number never meet. A row is
 * keyed by its table's view, file number and user key: the newest entry of that key in that file,
 * which never changes (files are immutable), so no write has to invalidate it; a hot key read after
 * its memtable was flushed costs one probe here instead of an index search, a block probe and a
 * search in the block. Rows and blocks compete for the same memory under the same CLOCK hand.
 *
 * <p>Sharded 16 ways so concurrent inserts rarely meet on one lock; lookups take none. Each shard
 * is an open-addressing hash table (linear probing, one immutable entry object per block, no
 * per-lookup allocation) whose slots double as a generalized CLOCK ring: a hit only raises the
 * slot's use count (saturating at {@value #MAX_USES}), and the eviction hand lowers counts and
 * evicts the first slot whose count is already zero. An LRU list would relink two neighbouring
 * entries on every hit, touching three more cache lines per lookup; CLOCK approximates LRU with
 * none, and the counts keep a block read many times through more sweeps than one read once.
 * Eviction is global over the views: a table whose blocks are read more keeps more of the memory.
 *
 * <p>Admission: once the cache is full, a block read by a point lookup or a scan is admitted only
 * when it was asked for before within the recent window ({@link #admit}, a "doorkeeper" bit set as
 * in TinyLFU). A stream of reads over data much larger than the cache would otherwise replace a
 * cached block on nearly every read: each replacement an allocation that survives young
 * collections and then dies in the old generation, which is what made get latency tails long.
 *
 * <p>Thread safety: thread-safe. Lookups take no lock (see {@link Shard}); changes to a shard's
 * table are guarded by the shard's monitor, and no I/O happens under it. The doorkeeper bits are
 * written without a lock: a lost update only admits or rejects one block wrongly.
 */
public final class SharedBlockCache {
  private static final int SHARDS = 16;
  private static final int MAX_USES = 3;
  private final Shard[] shards = new Shard[SHARDS];
  private final long capacityBytes;
  private final long[] doorkeeper;
  private final int doorkeeperMask;
  private final AtomicLong doorkeeperAdds = new AtomicLong();
  private final AtomicLong views = new AtomicLong();

  public SharedBlockCache(long capacityBytes) {
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("block cache capacity must be >= 0, was " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
    // About 8 bits per block the cache holds (4 KiB blocks), between 64 Ki and 8 Mi bits.
    long bits = Long.highestOneBit(Math.max(1L << 16, Math.min(1L << 23, capacityBytes / 512)));
    this.doorkeeper = new long[(int) (bits >>> 6)];
    this.doorkeeperMask = (int) bits - 1;
    for (int i = 0; i < SHARDS; i++) {
      shards[i] = new Shard(Math.max(1, capacityBytes / SHARDS));
    }
  }

  /**
   * A new view for one table: its blocks (and rows, when {@code cacheRows}), hit and miss counts,
   * and bytes held.
   */
  public BlockCache newView(boolean cacheRows) {
    return new BlockCache(this, views.incrementAndGet() * 0xD6E8FEB86659FD93L, cacheRows);
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** A well-mixed 64-bit hash of a block's address; shard and slot come from different bits. */
  private static long hash(BlockCache view, long fileNum, long offset) {
    long h = ((fileNum + view.salt) * 0x9E3779B97F4A7C15L) ^ offset;
    h *= 0xC2B2AE3D27D4EB4FL;
    return h ^ (h >>> 29);
  }

  private Shard shard(long h) {
    return shards[(int) (h >>> 60)];
  }

  /** The cached block, or {@code null}. Lock-free. */
  Block get(BlockCache view, long fileNum, long offset) {
    long h = hash(view, fileNum, offset);
    return (Block) shard(h).get(h, view, fileNum, offset, null);
  }

  /**
   * The cached newest entry of {@code userKey} in file {@code fileNum}, or {@code null}. The
   * caller must not change the returned value array. Lock-free.
   *
   * @param keyHash the key's 64-bit hash ({@code BloomFormat.hash})
   */
  Lookup getRow(BlockCache view, long fileNum, long keyHash, byte[] userKey) {
    long h = hash(view, fileNum, keyHash);
    return (Lookup) shard(h).get(h, view, fileNum, keyHash, userKey);
  }

  /**
   * Whether a block just read from the file should be put in the cache: always while the cache has
   * room; once full, only when the block was asked for before within the window (its two doorkeeper
   * bits are set). Otherwise sets its bits; the bits are cleared after about a cache's worth of
   * blocks has been recorded.
   */
  boolean admit(BlockCache view, long fileNum, long offset) {
    if (capacityBytes <= 0) {
      return false;
    }
    if (usedBytesApprox() < capacityBytes - (capacityBytes >>> 4)) {
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

  /** The bytes held, read without locks (each shard's count may be slightly stale). */
  private long usedBytesApprox() {
    long n = 0;
    for (Shard s : shards) {
      n += s.used;
    }
    return n;
  }

  /**
   * Puts (or replaces) a block; evicts blocks (of any view) by CLOCK until the shard is within its
   * capacity. A cache of capacity 0 holds nothing.
   */
  void put(BlockCache view, long fileNum, long offset, Block block) {
    put(new Entry(hash(view, fileNum, offset), view, fileNum, offset, null, block, block.memoryBytes()));
  }

  /**
   * Puts (or replaces) a row: the newest entry of {@code userKey} in file {@code fileNum}. Both
   * arrays are kept, not copied; neither may change afterwards.
   */
  void putRow(BlockCache view, long fileNum, long keyHash, byte[] userKey, Lookup row) {
    long bytes = ROW_OVERHEAD + userKey.length + row.value().length;
    put(new Entry(hash(view, fileNum, keyHash), view, fileNum, keyHash, userKey, row, bytes));
  }

  private void put(Entry e) {
    if (capacityBytes <= 0) {
      return;
    }
    Shard s = shard(e.hash);
    synchronized (s) {
      s.put(e);
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

  /** The bytes held for the view's blocks of the files in {@code fileNums} (sorted). */
  long cachedBytes(BlockCache view, long[] fileNums) {
    return sumOverShards(s -> s.bytesOf(view, fileNums));
  }

  /** The bytes held, for all views. */
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

  /** Whether an entry of {@code view} with {@code fileNum} is selected ({@code null}: all of it). */
  private static boolean selected(Entry e, BlockCache view, long[] fileNums) {
    return e.view == view && (fileNums == null || Arrays.binarySearch(fileNums, e.fileNum) >= 0);
  }

  /**
   * Estimated heap bytes of a cached row beyond its key and value bytes: the entry, the
   * {@link Lookup}, two array headers and the entry's share of the slot table.
   */
  static final int ROW_OVERHEAD = 160;

  /**
   * One cached block or row. A block's key is its offset (and {@link #rowKey} is {@code null}); a
   * row's is the user key's hash and the user key. Immutable but for {@link #uses}, which readers
   * raise and the hand lowers without a lock (a lost update only changes when it is evicted).
   */
  private static final class Entry {
    final long hash;
    final BlockCache view;
    final long fileNum;
    /** A block's offset, or a row's key hash. */
    final long offset;
    /** A row's user key; {@code null} for a block. */
    final byte[] rowKey;
    /** A {@link Block} or, for a row, a {@link Lookup}. */
    final Object payload;
    final long bytes;
    int uses = 1;

    Entry(long hash, BlockCache view, long fileNum, long offset, byte[] rowKey, Object payload, long bytes) {
      this.hash = hash;
      this.view = view;
      this.fileNum = fileNum;
      this.offset = offset;
      this.rowKey = rowKey;
      this.payload = payload;
      this.bytes = bytes;
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
   * One shard: an open-addressing table of at most half load, whose slot order is the CLOCK ring.
   *
   * <p>Thread safety: {@link #get} reads without a lock; every other method requires the shard's
   * monitor. A lock-free reader reads {@link #table} (volatile; a resize publishes a new array) and
   * then slots; an entry is immutable and safely published by its final fields, so a reader finds
   * either the right block or, when a concurrent removal shifts the probe run it walks, nothing (a
   * miss, which reads the file). Every table keeps free slots, so a probe always ends. A view's
   * byte count is changed only under the monitor of the shard holding the block.
   */
  private static final class Shard {
    private static final int MIN_SLOTS = 64;
    final long capacity;
    volatile Entry[] table = new Entry[MIN_SLOTS];
    @GuardedBy("this")
    int count;
    @GuardedBy("this")
    int hand;
    /** Written under the monitor; read without it for admission. */
    volatile long used;

    Shard(long capacity) {
      this.capacity = capacity;
    }

    /** The payload of the block ({@code rowKey == null}) or row, or {@code null}. Lock-free. */
    Object get(long h, BlockCache view, long fileNum, long offset, byte[] rowKey) {
      Entry[] t = table;
      int mask = t.length - 1;
      for (int i = (int) h & mask; ; i = (i + 1) & mask) {
        Entry e = t[i];
        if (e == null) {
          return null;
        }
        if (e.is(view, fileNum, offset, rowKey)) {
          if (e.uses < MAX_USES) {
            e.uses++;
          }
          return e.payload;
        }
      }
    }

    /** The slot holding the address, or the empty slot where it would go. Requires the monitor. */
    private static int find(Entry[] t, Entry key) {
      int mask = t.length - 1;
      int i = (int) key.hash & mask;
      while (t[i] != null && !t[i].is(key.view, key.fileNum, key.offset, key.rowKey)) {
        i = (i + 1) & mask;
      }
      return i;
    }

    /** Requires the monitor. */
    @GuardedBy("this")
    void put(Entry e) {
      Entry[] t = table;
      int i = find(t, e);
      Entry old = t[i];
      long delta = e.bytes;
      if (old != null) {
        delta -= old.bytes;
      } else {
        if ((count + 1) * 2 > t.length) {
          t = resize(t.length * 2);
          i = find(t, e);
        }
        count++;
      }
      used += delta;
      e.view.addBytes(delta);
      // An entry starts as if read once: it survives the hand's next sweep, later ones only if read.
      t[i] = e;
      evictToCapacity(e);
    }

    /** Runs the CLOCK hand until the shard fits; never evicts {@code keep}. Requires the monitor. */
    @GuardedBy("this")
    private void evictToCapacity(Entry keep) {
      Entry[] t = table;
      int mask = t.length - 1;
      // MAX_USES sweeps bring every count to zero, so the next one finds a victim.
      for (long steps = (MAX_USES + 2L) * t.length; used > capacity && count > 1 && steps > 0; steps--) {
        int i = hand;
        Entry e = t[i];
        if (e == null || e == keep) {
          hand = (i + 1) & mask;
        } else if (e.uses > 0) {
          e.uses--;
          hand = (i + 1) & mask;
        } else {
          // The entry shifted into slot i (if any) is examined next: the hand stays.
          removeAt(t, i);
        }
      }
    }

    /**
     * Empties slot {@code i} and shifts later entries of its probe run back (no tombstones).
     * Requires the monitor.
     */
    @GuardedBy("this")
    private void removeAt(Entry[] t, int i) {
      int mask = t.length - 1;
      long bytes = t[i].bytes;
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
          t[find(t, e)] = e;
        }
      }
      hand = 0;
      table = t;
      return t;
    }

    /** Removes the view's blocks of {@code fileNums} ({@code null}: all). Requires the monitor. */
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
          n += e.bytes;
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
