package org.kvstore.lsm.sstable;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.kvstore.lsm.key.Lookup;

/**
 * One table's view of a {@link SharedBlockCache}: its data blocks, keyed by file number and block
 * offset, its rows (when {@link #cachesRows()}), keyed by file number and user key, and its own hit
 * and miss counts and bytes held. Views of one shared cache compete for its memory;
 * {@link #BlockCache(long, boolean)} makes a view of a cache of its own.
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
  private final LongAdder rowHits = new LongAdder();
  private final LongAdder rowMisses = new LongAdder();
  private final AtomicLong bytes = new AtomicLong();
  private final boolean cacheRows;

  BlockCache(SharedBlockCache shared, long salt, boolean cacheRows) {
    this.shared = shared;
    this.salt = salt;
    this.cacheRows = cacheRows && shared.capacityBytes() > 0;
    shared.viewOpened();
  }

  /** A view of a new cache of {@code capacityBytes} used by nobody else. */
  public BlockCache(long capacityBytes, boolean cacheRows) {
    this(new SharedBlockCache(capacityBytes), 0, cacheRows);
  }

  /** A view, without rows, of a new cache of {@code capacityBytes} used by nobody else. */
  public BlockCache(long capacityBytes) {
    this(capacityBytes, false);
  }

  /** Whether point reads keep the rows they find here ({@link #getRow}, {@link #putRow}). */
  public boolean cachesRows() {
    return cacheRows;
  }

  /**
   * The cached newest entry of {@code userKey} in file {@code fileNum}, or {@code null}; counts a
   * row hit or miss. The value array is a copy, the caller's own.
   */
  public Lookup getRow(long fileNum, long keyHash, byte[] userKey) {
    Lookup r = shared.getRow(this, fileNum, keyHash, userKey);
    if (r == null) {
      rowMisses.increment();
    } else {
      rowHits.increment();
    }
    return r;
  }

  /** Whether the row of {@code userKey} in file {@code fileNum} is cached; counts nothing. */
  public boolean hasRow(long fileNum, long keyHash, byte[] userKey) {
    return shared.hasRow(this, fileNum, keyHash, userKey);
  }

  /**
   * Whether a row just found in file {@code fileNum} should be put in the cache: the same admission
   * as a block's ({@link SharedBlockCache#admit}), by the row's key hash.
   */
  public boolean admitRow(long fileNum, long keyHash) {
    return shared.admit(this, fileNum, keyHash);
  }

  /**
   * Puts the newest entry of {@code userKey} in file {@code fileNum}. The value is copied into the
   * cache's memory; the key array is kept: the caller hands it over and must not change it.
   */
  public void putRow(long fileNum, long keyHash, byte[] userKey, Lookup row) {
    shared.putRow(this, fileNum, keyHash, userKey, row);
  }

  /**
   * Copies the cached block into {@code into} and returns its length, or returns -1 when it is not
   * cached; counts a hit or a miss.
   */
  public int get(long fileNum, long offset, BlockBuffer into) {
    int len = shared.copyBlock(this, fileNum, offset, into);
    if (len < 0) {
      misses.increment();
    } else {
      hits.increment();
    }
    return len;
  }

  /** Whether a block just read from the file should be put in the cache ({@link SharedBlockCache#admit}). */
  public boolean admit(long fileNum, long offset) {
    return shared.admit(this, fileNum, offset);
  }

  /**
   * Puts (or replaces) the block {@code contents[0, length)}, copying it into the cache's memory,
   * evicting others when the shared memory is full ({@link SharedBlockCache}).
   */
  public void put(long fileNum, long offset, byte[] contents, int length) {
    shared.put(this, fileNum, offset, contents, length);
  }

  /** Drops every block and row of {@code fileNum} (after the file is deleted or abandoned). */
  public void evictFile(long fileNum) {
    shared.evictFiles(this, new long[] {fileNum});
  }

  /** Drops every block and row of the files in {@code fileNums}, in one pass over the cache. */
  public void evictFiles(long... fileNums) {
    long[] sorted = fileNums.clone();
    Arrays.sort(sorted);
    shared.evictFiles(this, sorted);
  }

  /** Drops every block and row of this view. */
  public void evictAll() {
    shared.evictView(this);
  }

  /**
   * Drops every block and row of this view, whose table is closing; the last view of a cache to
   * close lets its memory go. Call once.
   */
  public void close() {
    shared.closeView(this);
  }

  /** The bytes held for blocks and rows of {@code fileNum}. */
  public long cachedBytes(long fileNum) {
    return shared.cachedBytes(this, new long[] {fileNum});
  }

  /** The bytes held for blocks and rows of the files in {@code fileNums}, in one pass over the cache. */
  public long cachedBytes(long... fileNums) {
    long[] sorted = fileNums.clone();
    Arrays.sort(sorted);
    return shared.cachedBytes(this, sorted);
  }

  /** Bytes held for this view. */
  public long usedBytes() {
    return bytes.get();
  }

  /** Blocks and rows held for this view. */
  public long size() {
    return shared.size(this);
  }

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }

  public long rowHits() {
    return rowHits.sum();
  }

  public long rowMisses() {
    return rowMisses.sum();
  }

  /** The cache this view shares. */
  public SharedBlockCache shared() {
    return shared;
  }

  /** Called by the shared cache, under the monitor of the shard that holds the block or row. */
  void addBytes(long delta) {
    bytes.addAndGet(delta);
  }
}
