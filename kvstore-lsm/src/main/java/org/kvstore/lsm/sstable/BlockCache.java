package org.kvstore.lsm.sstable;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One table's view of a {@link SharedBlockCache}: its data blocks, keyed by file number and block
 * offset, and its own hit and miss counts and bytes held. Views of one shared cache compete for its
 * memory; {@link #BlockCache(long)} makes a view of a cache of its own.
 *
 * <p>Thread safety: thread-safe, as {@link SharedBlockCache}; the counters are {@link LongAdder}s
 * and an {@link AtomicLong}.
 */
public final class BlockCache {
  private final SharedBlockCache shared;
  /** Mixed into the hash of this view's block addresses. */
  final long salt;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final AtomicLong bytes = new AtomicLong();

  BlockCache(SharedBlockCache shared, long salt) {
    this.shared = shared;
    this.salt = salt;
  }

  /** A view of a new cache of {@code capacityBytes} used by nobody else. */
  public BlockCache(long capacityBytes) {
    this(new SharedBlockCache(capacityBytes), 0);
  }

  /** The cached block, or {@code null}; counts a hit or a miss. */
  public Block get(long fileNum, long offset) {
    Block b = shared.get(this, fileNum, offset);
    if (b == null) {
      misses.increment();
    } else {
      hits.increment();
    }
    return b;
  }

  /** Whether a block just read from the file should be put in the cache ({@link SharedBlockCache#admit}). */
  public boolean admit(long fileNum, long offset) {
    return shared.admit(this, fileNum, offset);
  }

  /** Puts (or replaces) a block, evicting others by CLOCK when the shared memory is full. */
  public void put(long fileNum, long offset, Block block) {
    shared.put(this, fileNum, offset, block);
  }

  /** Drops every block of {@code fileNum} (after the file is deleted or abandoned). */
  public void evictFile(long fileNum) {
    shared.evictFiles(this, new long[] {fileNum});
  }

  /** Drops every block of the files in {@code fileNums}, in one pass over the cache. */
  public void evictFiles(long... fileNums) {
    long[] sorted = fileNums.clone();
    Arrays.sort(sorted);
    shared.evictFiles(this, sorted);
  }

  /** Drops every block of this view (its table is closing). */
  public void evictAll() {
    shared.evictView(this);
  }

  /** The bytes held for blocks of {@code fileNum}. */
  public long cachedBytes(long fileNum) {
    return shared.cachedBytes(this, new long[] {fileNum});
  }

  /** The bytes held for blocks of the files in {@code fileNums}, in one pass over the cache. */
  public long cachedBytes(long... fileNums) {
    long[] sorted = fileNums.clone();
    Arrays.sort(sorted);
    return shared.cachedBytes(this, sorted);
  }

  /** Bytes held for this view. */
  public long usedBytes() {
    return bytes.get();
  }

  /** Blocks held for this view. */
  public long size() {
    return shared.size(this);
  }

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }

  /** The cache this view shares. */
  public SharedBlockCache shared() {
    return shared;
  }

  /** Called by the shared cache, under the monitor of the shard that holds the block. */
  void addBytes(long delta) {
    bytes.addAndGet(delta);
  }
}
