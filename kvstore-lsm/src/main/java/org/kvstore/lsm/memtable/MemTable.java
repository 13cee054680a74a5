package org.kvstore.lsm.memtable;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.VarHandle;
import java.time.Clock;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.kvstore.Entry;
import org.kvstore.codec.FixedBE;
import org.kvstore.lsm.cursor.InternalCursor;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.spi.RefCount;

/**
 * The in-memory write buffer. Writers add entries with unique sequence numbers; readers see, for
 * each user key, the newest entry at or below their snapshot sequence number. Once full, the table
 * makes it immutable (no more adds) and a background thread writes it to an SSTable.
 *
 * <pre>
 *   hash index (user key)      ──▶ Chain "k1": v9 ─▶ v4 ─▶ v1      versions, newest first
 *   unsorted (new keys)        ──▶ the chains not yet in the skip list
 *   skip list (user key order) ──▶ the same Chain objects, once a cursor has sorted them in
 * </pre>
 *
 * <p>Each user key has one {@link Chain} of its versions, newest first, reachable both from a
 * concurrent skip list ordered by user key (cursors, flushes) and from a hash index (point reads).
 * A write of a key the memtable already holds (the common case of counters, sessions, caches:
 * Redis-style overwrites) is one hash probe and a link at the head of its chain, not a skip-list
 * insert (about twenty key comparisons, each a likely cache miss, at a few hundred thousand keys);
 * a point read of the newest version ({@link #latestValue}) is one hash probe. Cursors walk the skip
 * list and, per key, the versions at or below their snapshot, which is exactly the internal-key
 * order (user key ascending, sequence number descending) that SSTables use.
 *
 * <p>Writers pass the oldest snapshot an open cursor uses, and each add unlinks the versions of its
 * key below the newest one at or below it: with no cursor open, a key keeps its newest version
 * only, so a workload that overwrites a working set (the common case of a cache) holds that set,
 * not every write since the last flush (which would write the newest version of each key only
 * anyway). Readers walking a chain while it is cut keep going through the unlinked nodes.
 *
 * <p>A new key's chain goes into the hash index (which decides, under its monitor, the one chain
 * of the key) and onto the unsorted queue; the skip list gets it later, when a cursor is created:
 * {@link #newCursor} first moves every queued chain into the skip list, in key order, under
 * {@code sortLock}, so the write path never pays a skip-list insert (about twenty key comparisons,
 * each a likely cache miss; see docs/decisions/0005-memtable-unsorted-queue.md) and a flush sorts a
 * memtable's new keys on its own thread, where in-order inserts find their path in the cache. An
 * acknowledged write is in the index and the queue before its add returns, so a later read finds it
 * in the index and a later cursor, which sorts the queue in before it walks the skip list, finds it
 * there. A cursor's snapshot covers only writes that completed before it was taken (the table's
 * write fence), so keys queued after the sort are above every snapshot of cursors already open.
 *
 * <p>Memory: {@link #approximateBytes()} counts key bytes plus {@link #KEY_OVERHEAD} per key, and
 * value bytes plus {@link #VERSION_OVERHEAD} per version kept ({@link #EXPIRY_OVERHEAD} more for a
 * version with an expiry time; dropped versions are subtracted): estimates of the skip-list and
 * hash-index nodes, the key and chain objects, the version node and the array headers. A value in
 * the arena is counted once, when it is placed, and stays counted when its version is dropped (its
 * chunk space is freed only with the memtable), so overwrites of one key fill the memtable as they
 * fill the arena, and the memtable's size bounds its chunks.
 *
 * <p>Each version carries the entry's version (the LSN of its write) and, for a put, its expiry;
 * {@link #latestValue} and {@link #latestValues} treat a put expired at the clock's time as a
 * delete, since an expired newest entry hides the older entries of its key.
 *
 * <p>Values: with a {@link MemtableArena}, a put's value is copied into a chunk of the arena's
 * direct memory (one larger than an eighth of a chunk, or finds the arena full, stays the
 * caller's array on the heap), so the live memtable is mostly outside the collected heap. Reads
 * copy such a value out. The memtable holds a reference count: one for its table (released by
 * {@link #release} once its flush is installed, or at the table's close) and one per open cursor;
 * when the last one goes, the chunks go back to the arena for the next memtables. A point read
 * takes no reference: it copies, then checks that the memtable was not recycled meanwhile, and
 * otherwise returns {@link #RETRY} (the table reads again from its current view, where the flushed
 * SSTable is by then): a seqlock, as in the block cache.
 *
 * <p>The hash index is a {@link KeyIndex}: an open-addressing table whose slots hold the chains
 * themselves, so a probe loads a slot and the chain, not a map node in between.
 *
 * <p>Thread safety: thread-safe. The skip list is a concurrent map, the queue of unsorted chains a
 * lock-free queue, and the hash index a {@link KeyIndex} (lock-free lookups, inserts under its
 * monitor); a chain's adds are serialized on the chain's monitor (writes of one key are ordered by
 * the store anyway, so it is uncontended), and its links are volatile, so reads never lock.
 * Creating a cursor takes {@code sortLock} to sort the queued chains in; walking it takes no lock.
 * Cursors are weakly consistent and filter entries above their snapshot.
 */
public final class MemTable {
  /**
   * Estimated heap bytes per distinct user key beyond its bytes: the chain object (72 bytes), the
   * key array's header, the skip-list nodes and the hash index's slots (4 to 16 bytes: a table a
   * quarter to half full), calibrated against a heap measurement (see
   * docs/decisions/0017-memtable-chains-and-key-index.md).
   */
  public static final int KEY_OVERHEAD = 112;
  /**
   * Estimated heap bytes per version beyond its value bytes: the node (with its version) and the
   * value array's header; a version with an expiry time takes {@link #EXPIRY_OVERHEAD} more.
   */
  public static final int VERSION_OVERHEAD = 56;
  /** Extra heap bytes of a version that carries an expiry time (its own node class). */
  public static final int EXPIRY_OVERHEAD = 8;
  /** An {@code oldestSnapshot} below every sequence number: keeps every version. */
  public static final long KEEP_ALL_VERSIONS = Long.MIN_VALUE;
  /**
   * What {@link #latestValue} returns for a key whose newest entry is a delete; compared by
   * identity (an empty value that was put is another array).
   */
  public static final byte[] DELETED = new byte[0];
  /**
   * What a point read returns when the memtable was recycled while it copied the value (the bytes
   * may be another memtable's): read again from the table's current view. Compared by identity.
   */
  public static final byte[] RETRY = new byte[0];

  private final ConcurrentSkipListMap<UserKey, Chain> map = new ConcurrentSkipListMap<>();
  private final KeyIndex<Chain> index = new KeyIndex<>();
  /** Chains of new keys that are in the index but not yet in the skip list ({@link #sortIn}). */
  private final ConcurrentLinkedQueue<Chain> unsorted = new ConcurrentLinkedQueue<>();
  /** Serializes {@link #sortIn}, so a cursor never starts while another one's keys are half in. */
  private final Object sortLock = new Object();
  private final AtomicLong bytes = new AtomicLong();
  /** Striped: every add updates them, and they are read only at a flush or for statistics. */
  private final LongAdder versions = new LongAdder();
  /** Deletes added (never decreased when a chain drops them): for the table's live-key estimate. */
  private final LongAdder deletes = new LongAdder();
  private final LongAccumulator maxSeqNum = new LongAccumulator(Math::max, 0);
  /** The size at which this memtable's next growth step is reported ({@link #passedReportMark}). */
  private final AtomicLong reportMark = new AtomicLong();

  /** Where values are copied to; {@code null}: they stay on the heap. */
  private final MemtableArena arena;
  /** The chunk values are placed in now; {@code null} before the first and once the arena is full. */
  private volatile MemtableArena.Chunk chunk;
  /** Set when the arena had no chunk to give: further values stay on the heap. */
  private volatile boolean arenaFull;
  /** Every chunk taken, in order. */
  @GuardedBy("chunkLock")
  private final List<MemtableArena.Chunk> chunks = new ArrayList<>();
  private final Object chunkLock = new Object();
  /** The table's reference and one per open cursor; the chunks go back at zero. */
  private final RefCount refs = new RefCount(1);
  /** Set by the first {@link #release}: the table's reference is gone. */
  private final AtomicBoolean released = new AtomicBoolean();
  /** Whether the chunks go back to the arena for reuse ({@code false}: they are forgotten). */
  private volatile boolean reuseChunks;
  /** Set before the chunks go back: a point read that sees it discards its copy. */
  private volatile boolean recycled;

  /** A memtable that keeps values on the heap. */
  public MemTable() {
    this(null);
  }

  /** A memtable that copies values into {@code arena} ({@code null}: keeps them on the heap). */
  public MemTable(MemtableArena arena) {
    this.arena = arena != null && arena.capacityBytes() > 0 ? arena : null;
  }

  /**
   * One version of a key, without an expiry time. Immutable but for {@code next}, which is set
   * before it is linked in. The value is {@code store} itself when that is an array (on the heap,
   * or {@link #DELETED}), else {@code length} bytes at {@code offset} of the arena chunk
   * {@code store}.
   */
  private static class Version {
    final long seqNum;
    final ValueKind kind;
    final Object store;
    final int offset;
    final int length;
    /** The entry's version as the engine reports it: the LSN of the write. */
    final long version;
    volatile Version next;

    Version(long seqNum, ValueKind kind, Object store, int offset, int length, long version) {
      this.seqNum = seqNum;
      this.kind = kind;
      this.store = store;
      this.offset = offset;
      this.length = length;
      this.version = version;
    }

    /** The value: the heap array itself, or a copy of the chunk's bytes. */
    byte[] value() {
      if (store instanceof byte[] a) {
        return a;
      }
      byte[] out = new byte[length];
      ((MemtableArena.Chunk) store).memory.get(offset, out);
      return out;
    }

    long expiresAt() {
      return Entry.NO_EXPIRY;
    }

    /** Whether this is a put that has expired by now (the clock is read only for one that expires). */
    boolean isExpiredPut(Clock clock) {
      return false;
    }

    /**
     * Bytes counted for this version while it is linked: its node, and its value when that is on
     * the heap (an arena value is counted once, when placed: its chunk space is not freed when the
     * version is dropped).
     */
    long bytes() {
      return VERSION_OVERHEAD + heapValueBytes();
    }

    final int heapValueBytes() {
      return store instanceof byte[] ? length : 0;
    }
  }

  /**
   * A version with an expiry time: a subclass, so that the versions of keys written without one
   * (the common case) do not carry the field.
   */
  private static final class ExpiringVersion extends Version {
    final long expiresAt;

    ExpiringVersion(long seqNum, Object store, int offset, int length, long version, long expiresAt) {
      super(seqNum, ValueKind.PUT, store, offset, length, version);
      this.expiresAt = expiresAt;
    }

    @Override
    long expiresAt() {
      return expiresAt;
    }

    @Override
    boolean isExpiredPut(Clock clock) {
      return Entry.isExpired(expiresAt, clock.millis());
    }

    @Override
    long bytes() {
      return VERSION_OVERHEAD + EXPIRY_OVERHEAD + heapValueBytes();
    }
  }

  /**
   * The versions of one user key, highest sequence number first; also that key in both maps. It
   * keeps the head's sequence number and the count and bytes of its versions itself, so that an
   * overwrite, the common case, neither reads the replaced version nor its value: two cache misses
   * less per write of a key that is not in the cache.
   *
   * <p>Thread safety: {@link #add} holds this object's monitor, which guards {@link #headSeq},
   * {@link #count} and {@link #bytes}; readers follow the volatile links without it.
   */
  private static final class Chain extends UserKey {
    volatile Version head;
    /** The head's sequence number ({@code Long.MIN_VALUE} while empty). */
    @GuardedBy("this")
    private long headSeq = Long.MIN_VALUE;
    /** Versions linked. */
    @GuardedBy("this")
    private int count;
    /** {@link #VERSION_OVERHEAD} plus value bytes, summed over the versions linked. */
    @GuardedBy("this")
    private long bytes;
    /**
     * A point read of the newest version found this key ({@link #latestValue}): a flush puts such
     * rows into the row cache. Written by readers without synchronization (a benign race: a mark
     * set while the flush passes the key is lost, which only leaves that row out of the cache).
     */
    boolean read;

    Chain(UserKey key) {
      super(key);
    }

    /**
     * Links {@code v} in sequence order (at the head, unless racing adds came out of order), then
     * unlinks the versions below the newest one at or below {@code oldestSnapshot}: no reader at
     * that snapshot or above can see them. Adds the change in the number of versions to
     * {@code versions}.
     *
     * @return the change in the bytes of the chain's versions
     */
    synchronized long add(Version v, long oldestSnapshot, LongAdder versions) {
      Version h = head;
      long before = bytes;
      int countBefore = count;
      count++;
      bytes += v.bytes();
      if (h == null || v.seqNum > headSeq) {
        v.next = h;
        head = v;
        headSeq = v.seqNum;
      } else {
        Version pred = h;
        while (pred.next != null && pred.next.seqNum > v.seqNum) {
          pred = pred.next;
        }
        v.next = pred.next;
        pred.next = v;
      }
      // Keep down to the newest version at or below the oldest snapshot (with no cursor open, the
      // head, which is v); the kept versions are counted again, the dropped ones never read.
      Version keep = head;
      while (keep.next != null && keep.seqNum > oldestSnapshot) {
        keep = keep.next;
      }
      if (keep.next != null) {
        int kept = 0;
        long keptBytes = 0;
        for (Version x = head; ; x = x.next) {
          kept++;
          keptBytes += x.bytes();
          if (x == keep) {
            break;
          }
        }
        // A reader already past "keep" still walks the dropped nodes, whose links stay as they are.
        keep.next = null;
        count = kept;
        bytes = keptBytes;
      }
      versions.add(count - countBefore);
      return bytes - before;
    }

    /** The newest version at or below {@code snapshotSeq}, or {@code null}. */
    Version visibleAt(long snapshotSeq) {
      Version v = head;
      while (v != null && v.seqNum > snapshotSeq) {
        v = v.next;
      }
      return v;
    }
  }

  /**
   * Adds one entry of version 0 without expiry and keeps every version (for tests of the
   * memtable's structure).
   */
  public long add(byte[] userKey, long seqNum, ValueKind kind, byte[] value) {
    return add(userKey, seqNum, kind, value, 0, Entry.NO_EXPIRY, KEEP_ALL_VERSIONS);
  }

  /** {@link #add(byte[], long, ValueKind, byte[], long, long, long)} of version 0, without expiry. */
  public long add(byte[] userKey, long seqNum, ValueKind kind, byte[] value, long oldestSnapshot) {
    return add(userKey, seqNum, kind, value, 0, Entry.NO_EXPIRY, oldestSnapshot);
  }

  /**
   * Adds one entry and drops the versions of {@code userKey} that no reader can see any more: those
   * older than its newest version at or below {@code oldestSnapshot}, the smallest snapshot a
   * reader of this memtable may still use (the newest version is always kept, a delete included: it
   * hides older entries in older sources). The entry reports {@code version} (the write's LSN) and,
   * for a put, expires at {@code expiresAt} ({@link Entry#NO_EXPIRY}: never; ignored for a delete). A key overwritten again and again thus holds one version,
   * not one per write, and the memtable fills with distinct keys. REQUIRES: {@code seqNum} is unique
   * in this memtable, and no reader takes a snapshot below {@code oldestSnapshot} later;
   * {@code value} is ignored for a delete. The key array is kept, not copied; so is the value
   * array unless the value goes into the arena.
   *
   * @return the approximate size of the memtable after the add
   */
  public long add(
      byte[] userKey, long seqNum, ValueKind kind, byte[] value, long version, long expiresAt,
      long oldestSnapshot) {
    if (kind == ValueKind.DELETE) {
      deletes.increment();
    }
    Version node;
    long arenaBytes = 0;
    if (kind == ValueKind.DELETE) {
      node = new Version(seqNum, kind, DELETED, 0, 0, version);
    } else {
      Object store = value;
      int offset = 0;
      int len = value.length;
      if (arena != null && len > 0 && len <= arena.largestValue() && !arenaFull) {
        MemtableArena.Chunk c = chunk;
        for (;;) {
          int off = c == null ? -1 : c.reserve(len);
          if (off >= 0) {
            c.memory.put(off, value);
            store = c;
            offset = off;
            arenaBytes = len;
            break;
          }
          c = nextChunk(c);
          if (c == null) {
            break; // the arena is full: this value stays on the heap
          }
        }
      }
      node = expiresAt == Entry.NO_EXPIRY ? new Version(seqNum, kind, store, offset, len, version)
          : new ExpiringVersion(seqNum, store, offset, len, version, expiresAt);
    }
    long added = node.bytes() + arenaBytes;
    UserKey probe = new UserKey(userKey);
    Chain chain = index.get(probe);
    if (chain == null) {
      Chain fresh = new Chain(probe);
      Chain held = index.putIfAbsent(fresh);
      if (held == null) {
        chain = fresh;
        unsorted.add(fresh); // before this add returns: a later cursor sorts it in
        added += KEY_OVERHEAD + userKey.length;
      } else {
        chain = held;
      }
    }
    added += chain.add(node, oldestSnapshot, versions) - node.bytes();
    maxSeqNum.accumulate(seqNum);
    return bytes.addAndGet(added);
  }

  /**
   * The chunk after {@code full} (which had no room), taken from the arena by the first writer that
   * finds it full; {@code null} when the arena has none to give.
   */
  private MemtableArena.Chunk nextChunk(MemtableArena.Chunk full) {
    synchronized (chunkLock) {
      MemtableArena.Chunk c = chunk;
      if (c != full || arenaFull) {
        return arenaFull ? null : c; // another writer moved on already
      }
      c = arena.take();
      if (c == null) {
        arenaFull = true;
        chunk = null;
        return null;
      }
      chunks.add(c);
      chunk = c;
      return c;
    }
  }

  /**
   * {@code v}'s value for a reader holding no reference: the copy, or {@link #RETRY} when the
   * memtable was recycled before the copy was complete.
   */
  private byte[] readValue(Version v) {
    if (v.store instanceof byte[] a) {
      return a;
    }
    byte[] out = v.value();
    VarHandle.acquireFence(); // the copy's loads come before the flag's read
    return recycled ? RETRY : out;
  }

  private static Map.Entry<InternalKey, byte[]> entry(Chain c, Version v) {
    return new AbstractMap.SimpleImmutableEntry<>(new InternalKey(c.userKey, v.seqNum, v.kind), v.value());
  }

  /**
   * The newest entry of {@code userKey} with a sequence number at or below {@code snapshotSeq}, or
   * {@code null} when the memtable has none. The caller checks the kind (a delete hides older
   * entries in older sources). For tests, and for callers holding a reference ({@link #tryRef}):
   * the value is not checked against a recycle.
   */
  public Map.Entry<InternalKey, byte[]> get(byte[] userKey, long snapshotSeq) {
    Chain c = index.get(new UserKey(userKey));
    Version v = c == null ? null : c.visibleAt(snapshotSeq);
    return v == null ? null : entry(c, v);
  }

  /**
   * The newest entry of {@code userKey} with its version and expiry (expired or not), or
   * {@code null} when the memtable has none, or {@link Lookup#RETRY} (see {@link #RETRY}). The value
   * is the caller's own (an arena value's copy, or a heap value's clone). Marks the key as read.
   */
  public Lookup latestEntry(byte[] userKey) {
    Chain c = index.get(new UserKey(userKey));
    if (c == null) {
      return null;
    }
    if (!c.read) {
      c.read = true;
    }
    Version v = c.head;
    if (v == null) {
      return null;
    }
    byte[] value = readValue(v);
    if (value == RETRY) {
      return Lookup.RETRY;
    }
    return new Lookup(v.seqNum, v.kind, value == v.store ? value.clone() : value, v.version, v.expiresAt());
  }

  /** {@link #latestValue(byte[], Clock, boolean)} that may return the memtable's own array. */
  public byte[] latestValue(byte[] userKey, Clock clock) {
    return latestValue(userKey, clock, false);
  }

  /**
   * The newest value of {@code userKey}: a copy of an arena value; the array that was put when the
   * value is on the heap (cloned if {@code copy}; else the caller must not modify it);
   * {@link #DELETED} when the newest entry is a delete or a put expired at {@code clock}'s time (it
   * hides older entries in older sources all the same); {@code null} when the memtable has no entry
   * of the key; or {@link #RETRY}. One hash probe: the point-read path. Marks the key as read
   * ({@link MemTableCursor#keyRead}).
   */
  public byte[] latestValue(byte[] userKey, Clock clock, boolean copy) {
    Chain c = index.get(new UserKey(userKey));
    if (c == null) {
      return null;
    }
    if (!c.read) {
      c.read = true; // once: later reads of the key do not write its cache line
    }
    return valueOf(c.head, clock, copy);
  }

  /** What a point read of the newest version {@code v} returns: its value, DELETED, RETRY or null. */
  private byte[] valueOf(Version v, Clock clock, boolean copy) {
    if (v == null) {
      return null;
    }
    if (v.kind != ValueKind.PUT || v.isExpiredPut(clock)) {
      return DELETED;
    }
    byte[] value = readValue(v);
    return copy && value == v.store ? value.clone() : value;
  }

  /**
   * {@link #latestValue} of {@code keys[0..n)} into {@code values[0..n)}, looked up in stages (every
   * key's index slot, then every chain, then every newest version), so that the cache misses of
   * different keys overlap instead of following each other: at a few hundred thousand keys each of
   * those loads is a likely miss, and one key's lookup is three or four of them in a row.
   */
  public void latestValues(byte[][] keys, int n, byte[][] values, Clock clock) {
    UserKey[] probes = new UserKey[n];
    for (int i = 0; i < n; i++) {
      probes[i] = new UserKey(keys[i]);
    }
    Object[] found = new Object[n];
    index.getAll(probes, n, found);
    for (int i = 0; i < n; i++) {
      Chain c = (Chain) found[i];
      if (c != null) {
        if (!c.read) {
          c.read = true;
        }
        found[i] = c.head;
      }
    }
    for (int i = 0; i < n; i++) {
      values[i] = valueOf((Version) found[i], clock, false);
    }
  }

  /**
   * Whether {@code bytes}, this memtable's size after a write, reached the report mark; the one
   * caller that moves the mark to {@code bytes + step} gets {@code true}. The mark starts at 0, so
   * the first write to a memtable reports. Thread-safe (compare-and-set).
   */
  public boolean passedReportMark(long bytes, long step) {
    long mark = reportMark.get();
    return bytes >= mark && reportMark.compareAndSet(mark, bytes + step);
  }

  public long approximateBytes() {
    return bytes.get();
  }

  public boolean isEmpty() {
    return versions.sum() == 0;
  }

  /** The number of entries (all versions of all keys). */
  public long entryCount() {
    return versions.sum();
  }

  /** The deletes added to this memtable (an upper bound of the tombstones it holds). */
  public long deleteCount() {
    return deletes.sum();
  }

  /** The largest sequence number added, 0 when empty. */
  public long maxSeqNum() {
    return maxSeqNum.get();
  }

  /**
   * A cursor over the entries with sequence numbers at or below {@code snapshotSeq}, holding a
   * reference until it is closed. Sorts the chains of keys added since the last cursor into the
   * skip list first ({@link #sortIn}). REQUIRES: the table's reference is not released yet (the
   * memtable is in the table's view, or being flushed).
   */
  public MemTableCursor newCursor(long snapshotSeq) {
    MemTableCursor c = tryNewCursor(snapshotSeq);
    if (c == null) {
      throw new IllegalStateException("memtable already released");
    }
    return c;
  }

  /**
   * {@link #newCursor}, or {@code null} when the memtable was released and recycled meanwhile (a
   * view read before its flush was installed): take the table's current view and try again.
   */
  public MemTableCursor tryNewCursor(long snapshotSeq) {
    if (!refs.tryAcquire()) {
      return null;
    }
    sortIn();
    return new MemTableCursor(snapshotSeq);
  }

  /**
   * Releases the table's reference: once its flush is installed ({@code reuse}: no new reader can
   * find it, so its chunks go back to the arena when the last cursor closes), or at the table's
   * close ({@code reuse} false: a reader after the close may still read it, so its chunks are
   * forgotten, never reused). Only the first call counts (a flush that completes after its table's
   * close stopped waiting for it finds the memtable released already).
   */
  public void release(boolean reuse) {
    if (!released.compareAndSet(false, true)) {
      return;
    }
    reuseChunks = reuse;
    unref();
  }

  private void unref() {
    if (!refs.release() || arena == null) {
      return;
    }
    List<MemtableArena.Chunk> taken;
    synchronized (chunkLock) {
      taken = List.copyOf(chunks);
      chunks.clear();
      chunk = null;
      arenaFull = true; // nothing is added any more; and no chunk is taken after this
    }
    if (reuseChunks) {
      recycled = true; // before any chunk can be reused: readers of it then retry
      arena.giveBack(taken);
    } else {
      arena.forget(taken);
    }
  }

  /** The arena bytes this memtable holds (whole chunks). */
  public long arenaBytes() {
    synchronized (chunkLock) {
      return arena == null ? 0 : (long) chunks.size() * arena.chunkBytes();
    }
  }

  /**
   * Moves every queued new key's chain into the skip list, in key order (each insert then finds
   * most of its search path where the previous one left it; the skip list orders its keys itself,
   * so the sort is for speed only), sorted by {@link PrefixRadixSort} on the keys' inline prefixes,
   * which reads each chain once. Takes {@code sortLock}: a second
   * caller waits until the first one's chains are all in, so when it returns every chain queued
   * before the call is in the skip list.
   */
  private void sortIn() {
    synchronized (sortLock) { // also when the queue looks empty: another caller may be half done
      if (unsorted.isEmpty()) {
        return;
      }
      List<Chain> batch = new ArrayList<>();
      for (Chain c; (c = unsorted.poll()) != null; ) {
        batch.add(c);
      }
      Chain[] sorted = batch.toArray(new Chain[0]);
      long[] prefix0 = new long[sorted.length];
      long[] prefix1 = new long[sorted.length];
      for (int i = 0; i < sorted.length; i++) {
        UserKey k = sorted[i];
        prefix0[i] = k.prefix0;
        prefix1[i] = k.prefix1;
      }
      PrefixRadixSort.sort(sorted, prefix0, prefix1);
      for (Chain c : sorted) {
        map.put(c, c);
      }
    }
  }

  /**
   * A user key as the key of both maps, with its first 16 bytes kept inline as two big-endian
   * longs (zero-padded), its length and its hash: most comparisons of a skip-list search, and the
   * equality test of a hash probe for keys of up to 16 bytes, are decided without loading the key's
   * byte array, one cache miss less per step. The order is unsigned lexicographic, as
   * {@link InternalKey}'s on user keys; equality is content equality. A {@link Chain} is its own
   * key in both maps; a bare instance is a probe.
   *
   * <p>Thread safety: immutable.
   */
  private static class UserKey implements Comparable<UserKey> {
    private static final int INLINE = 16;
    final byte[] userKey;
    private final long prefix0;
    private final long prefix1;
    private final int hash;
    private final int length;

    UserKey(byte[] userKey) {
      this.userKey = userKey;
      this.length = userKey.length;
      this.prefix0 = FixedBE.getLongPadded(userKey, 0, length);
      this.prefix1 = FixedBE.getLongPadded(userKey, 8, length);
      this.hash = Arrays.hashCode(userKey);
    }

    /** The same key (its inline fields are copied, not computed again). */
    UserKey(UserKey k) {
      this.userKey = k.userKey;
      this.length = k.length;
      this.prefix0 = k.prefix0;
      this.prefix1 = k.prefix1;
      this.hash = k.hash;
    }

    @Override
    public final int compareTo(UserKey o) {
      if (prefix0 != o.prefix0) {
        return Long.compareUnsigned(prefix0, o.prefix0);
      }
      if (prefix1 != o.prefix1) {
        return Long.compareUnsigned(prefix1, o.prefix1);
      }
      if (length <= INLINE && o.length <= INLINE) {
        // Equal zero-padded prefixes: the same key, or one is the other plus trailing zeros.
        return Integer.compare(length, o.length);
      }
      return Arrays.compareUnsigned(userKey, o.userKey);
    }

    @Override
    public final boolean equals(Object o) {
      if (!(o instanceof UserKey k) || hash != k.hash || prefix0 != k.prefix0 || prefix1 != k.prefix1
          || length != k.length) {
        return false;
      }
      return length <= INLINE || Arrays.equals(userKey, INLINE, length, k.userKey, INLINE, length);
    }

    @Override
    public final int hashCode() {
      return hash;
    }
  }

  /** A cursor over a memtable. Thread safety: confined. */
  public final class MemTableCursor implements InternalCursor {
    private final long snapshotSeq;
    private boolean closed;
    private Iterator<Chain> it;
    private Chain chain;
    private Version current;

    MemTableCursor(long snapshotSeq) {
      this.snapshotSeq = snapshotSeq;
    }

    @Override
    public boolean isValid() {
      return current != null;
    }

    @Override
    public void seekToFirst() {
      it = map.values().iterator();
      nextChain();
    }

    @Override
    public void seek(byte[] userKey, long seqNum) {
      it = map.tailMap(new UserKey(userKey), true).values().iterator();
      if (!it.hasNext()) {
        chain = null;
        current = null;
        return;
      }
      chain = it.next();
      if (Arrays.equals(chain.userKey, userKey)) {
        // Internal order: this key's versions at or below seqNum come at or after the seek key.
        current = chain.visibleAt(Math.min(seqNum, snapshotSeq));
        if (current == null) {
          nextChain();
        }
      } else {
        current = chain.visibleAt(snapshotSeq);
        if (current == null) {
          nextChain();
        }
      }
    }

    @Override
    public void next() {
      Version v = current.next;
      while (v != null && v.seqNum > snapshotSeq) {
        v = v.next;
      }
      current = v;
      if (current == null) {
        nextChain();
      }
    }

    /** Moves to the newest visible version of the next key that has one. */
    private void nextChain() {
      current = null;
      while (it.hasNext()) {
        chain = it.next();
        current = chain.visibleAt(snapshotSeq);
        if (current != null) {
          return;
        }
      }
      chain = null;
    }

    @Override
    public byte[] userKey() {
      return chain.userKey;
    }

    @Override
    public long seqNum() {
      return current.seqNum;
    }

    @Override
    public ValueKind kind() {
      return current.kind;
    }

    @Override
    public long version() {
      return current.version;
    }

    @Override
    public long expiresAt() {
      return current.expiresAt();
    }

    /** A copy of an arena value (the cursor's reference keeps the chunk), or the heap array. */
    @Override
    public byte[] value() {
      return current.value();
    }

    /** The length of the current value (0 for a delete). */
    public int valueLength() {
      return current.length;
    }

    /**
     * The current value without a new array: the heap array itself, or {@code scratch} (at least
     * {@link #valueLength()} long) with the arena value copied to its start. Either way the value is
     * its first {@link #valueLength()} bytes.
     */
    public byte[] valueInto(byte[] scratch) {
      if (current.store instanceof byte[] a) {
        return a;
      }
      ((MemtableArena.Chunk) current.store).memory.get(current.offset, scratch, 0, current.length);
      return scratch;
    }

    /** Whether a point read found the current key in this memtable ({@link #latestValue}). */
    public boolean keyRead() {
      return chain.read;
    }

    @Override
    public void close() {
      current = null;
      chain = null;
      if (!closed) {
        closed = true;
        unref();
      }
    }
  }
}
