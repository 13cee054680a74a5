package org.kvstore.lsm.sstable;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An LRU cache of decoded blocks, bounded in bytes ({@code block.cache.size}), keyed by file
 * number and block offset. Sharded 16 ways so concurrent readers rarely meet on one lock.
 *
 * <p>Admission: once the cache is full, a block read by a point lookup or a scan is admitted only
 * when it was asked for before within the recent window ({@link #admit}, a "doorkeeper" bit set as
 * in TinyLFU). A stream of reads over a table much larger than the cache would otherwise replace a
 * cached block on nearly every read: each replacement an allocation that survives young
 * collections and then dies in the old generation, which is what made get latency tails long.
 *
 * <p>Thread safety: thread-safe; each shard is a {@link LinkedHashMap} in access order guarded by
 * its own monitor. No I/O happens under a shard lock. The doorkeeper bits are written without a
 * lock: a lost update only admits or rejects one block wrongly.
 */
public final class BlockCache {
  private static final int SHARDS = 16;
  private final Shard[] shards = new Shard[SHARDS];
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final long capacityBytes;
  private final long[] doorkeeper;
  private final int doorkeeperMask;
  private final AtomicLong doorkeeperAdds = new AtomicLong();

  public BlockCache(long capacityBytes) {
    this.capacityBytes = capacityBytes;
    // About 8 bits per block the cache holds (4 KiB blocks), between 64 Ki and 8 Mi bits.
    long bits = Long.highestOneBit(Math.max(1L << 16, Math.min(1L << 23, capacityBytes / 512)));
    this.doorkeeper = new long[(int) (bits >>> 6)];
    this.doorkeeperMask = (int) bits - 1;
    for (int i = 0; i < SHARDS; i++) {
      shards[i] = new Shard(Math.max(1, capacityBytes / SHARDS));
    }
  }

  private static long key(long fileNum, long offset) {
    return fileNum << 40 ^ offset;
  }

  private Shard shard(long k) {
    long h = k * 0x9E3779B97F4A7C15L;
    return shards[(int) (h >>> 60)];
  }

  /** The cached block, or {@code null}. */
  public Block get(long fileNum, long offset) {
    long k = key(fileNum, offset);
    Shard s = shard(k);
    Block b;
    synchronized (s) {
      b = s.map.get(new CacheKey(fileNum, offset));
    }
    if (b == null) {
      misses.incrementAndGet();
    } else {
      hits.incrementAndGet();
    }
    return b;
  }

  /**
   * Whether a block just read from the file should be put in the cache: always while the cache has
   * room; once full, only when the block was asked for before within the window (its two doorkeeper
   * bits are set). Otherwise sets its bits; the bits are cleared after about a cache's worth of
   * blocks has been recorded.
   */
  public boolean admit(long fileNum, long offset) {
    if (capacityBytes <= 0) {
      return false;
    }
    if (usedBytesApprox() < capacityBytes - (capacityBytes >>> 4)) {
      return true;
    }
    long h = key(fileNum, offset) * 0x9E3779B97F4A7C15L;
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
      java.util.Arrays.fill(doorkeeper, 0L);
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

  public void put(long fileNum, long offset, Block block) {
    long k = key(fileNum, offset);
    Shard s = shard(k);
    synchronized (s) {
      Block old = s.map.put(new CacheKey(fileNum, offset), block);
      if (old != null) {
        s.used -= old.memoryBytes();
      }
      s.used += block.memoryBytes();
      Iterator<Map.Entry<CacheKey, Block>> it = s.map.entrySet().iterator();
      while (s.used > s.capacity && it.hasNext()) {
        Map.Entry<CacheKey, Block> e = it.next();
        s.used -= e.getValue().memoryBytes();
        it.remove();
      }
    }
  }

  /** Drops every block of {@code fileNum} (after the file is deleted). */
  public void evictFile(long fileNum) {
    for (Shard s : shards) {
      synchronized (s) {
        Iterator<Map.Entry<CacheKey, Block>> it = s.map.entrySet().iterator();
        while (it.hasNext()) {
          Map.Entry<CacheKey, Block> e = it.next();
          if (e.getKey().fileNum == fileNum) {
            s.used -= e.getValue().memoryBytes();
            it.remove();
          }
        }
      }
    }
  }

  public long usedBytes() {
    long n = 0;
    for (Shard s : shards) {
      synchronized (s) {
        n += s.used;
      }
    }
    return n;
  }

  public long hits() {
    return hits.get();
  }

  public long misses() {
    return misses.get();
  }

  private record CacheKey(long fileNum, long offset) {}

  /** Thread safety: guarded by its own monitor. */
  private static final class Shard {
    final long capacity;
    final LinkedHashMap<CacheKey, Block> map = new LinkedHashMap<>(256, 0.75f, true);
    /** Written under the monitor; read without it for admission (volatile). */
    volatile long used;

    Shard(long capacity) {
      this.capacity = capacity;
    }
  }
}
