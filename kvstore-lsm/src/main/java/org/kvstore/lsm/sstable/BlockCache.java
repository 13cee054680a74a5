package org.kvstore.lsm.sstable;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An LRU cache of decoded blocks, bounded in bytes ({@code block.cache.size}), keyed by file
 * number and block offset. Sharded 16 ways so concurrent readers rarely meet on one lock.
 *
 * <p>Thread safety: thread-safe; each shard is a {@link LinkedHashMap} in access order guarded by
 * its own monitor. No I/O happens under a shard lock.
 */
public final class BlockCache {
  private static final int SHARDS = 16;
  private final Shard[] shards = new Shard[SHARDS];
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();

  public BlockCache(long capacityBytes) {
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
    long used;

    Shard(long capacity) {
      this.capacity = capacity;
    }
  }
}
