package org.kvstore.bplus.tree;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.CorruptionException;
import org.kvstore.Entry;
import org.kvstore.bplus.buffer.BufferPool;
import org.kvstore.bplus.buffer.Frame;
import org.kvstore.bplus.buffer.FreedPageException;
import org.kvstore.bplus.buffer.PageFile;
import org.kvstore.bplus.buffer.PinnedPage;
import org.kvstore.bplus.page.BranchPage;
import org.kvstore.bplus.page.LeafPage;
import org.kvstore.bplus.page.OverflowPage;
import org.kvstore.bplus.page.PageFormat;
import org.kvstore.bplus.page.PageType;
import org.kvstore.bplus.page.SlottedPage;
import org.kvstore.codec.FixedLE;

/**
 * A B+tree of slotted pages in a {@link BufferPool}: point reads, inserts, updates, lazy
 * deletes, splits, and cursors over the leaf chain.
 *
 * <p>Design (docs/format/bplus.md sections 6 and 7). The root keeps logical page id 1 forever.
 * Readers use optimistic lock coupling: they read resident pages without pinning or latching them
 * and validate each page's version (its {@link Frame} stamp) after reading it and after taking the
 * child's, so a get writes no shared memory; they fall back to shared latch coupling when a page is
 * being changed too often, holds a key or value in an overflow chain, or looks damaged. Writers
 * descend the same optimistic way to the leaf's parent, pin and latch only the leaf exclusively and
 * validate the parent afterwards (optimistic pass), and restart with exclusive latch coupling from
 * the root only when the leaf must split (pessimistic pass), releasing ancestors as soon as a child
 * has room for one more separator. Latches are taken top-down only, so there is no deadlock. Removes never
 * merge (lazy deletion): pages leave the tree or the leaf chain only when a checkpoint collapses
 * an empty tree ({@link #collapseIfEmpty}), which is what lets cursors follow sibling links
 * without revalidation between collapses (they check the structure epoch).
 *
 * <p>Mutations run inside the {@link CheckpointGate} (the caller enters it), so a checkpoint's
 * freeze never sees a half-applied mutation.
 *
 * <p>Versions and expiry (docs/format/bplus.md section 3.3). Every leaf cell may carry its entry's
 * version and expiry time. Reads judge expiry by the tree's clock and treat an expired cell as
 * absent. A write that latches a leaf exclusively first drops the leaf's expired cells (and frees
 * their overflow chains): the entry count then no longer counts them. The leaf's expiry hint lets
 * the write skip that scan until a cell can have expired (docs/decisions/0027-bplus-expiry.md).
 * Nothing is logged for it: expiry is an absolute time, so a replayed or recovered table agrees
 * that those entries are gone, and a B+tree holds one cell per key, so dropping an expired cell
 * brings no older value back.
 *
 * <p>Thread safety: thread-safe.
 */
public final class BPlusTree {
  /** The root's logical page id. */
  public static final long ROOT_ID = 1;

  private final BufferPool pool;
  private final PageFile file;
  private final int pageSize;
  private final int maxCell;
  private final int maxInlineKey;
  private final OverflowChains chains;
  private final AtomicLong entryCount;
  private final Clock clock;
  /**
   * Raised twice by {@link #collapseIfEmpty}, before the first page changes and after the last
   * (odd while pages leave the tree, as a sequence lock): a cursor that read an even value before
   * copying a leaf and the same value afterwards knows that the leaf and its sibling link were
   * part of the tree, and stay so until the value changes.
   */
  private final AtomicLong structureEpoch = new AtomicLong();

  private BPlusTree(BufferPool pool, long entryCount, long nextChainId, Clock clock) {
    this.pool = pool;
    this.clock = clock;
    this.file = pool.file();
    this.pageSize = pool.pageSize();
    this.maxCell = SlottedPage.maxCell(pageSize);
    this.maxInlineKey = SlottedPage.maxInlineKey(pageSize);
    this.chains = new OverflowChains(pool, nextChainId);
    this.entryCount = new AtomicLong(entryCount);
  }

  /**
   * A tree over an existing root (opened from a checkpoint); {@code clock} judges expiry times.
   */
  public static BPlusTree open(BufferPool pool, long entryCount, long nextChainId, Clock clock) {
    return new BPlusTree(pool, entryCount, nextChainId, clock);
  }

  /** A new empty tree: allocates the root (id 1) as an empty leaf. */
  public static BPlusTree create(BufferPool pool, Clock clock) throws IOException {
    long id = pool.file().allocatePage();
    if (id != ROOT_ID) {
      throw new IllegalStateException("the root must be page 1, got " + id);
    }
    try (PinnedPage root = pool.newPage(ROOT_ID).latchExclusive()) {
      SlottedPage.init(root.data(), PageType.LEAF, 0, ROOT_ID, 0);
      root.markDirty();
    }
    return new BPlusTree(pool, 0, 1, clock);
  }

  /**
   * Cells in the leaves: live entries plus expired ones that no write has dropped yet (an expired
   * cell stops counting when a write to its leaf reclaims it).
   */
  public long entryCount() {
    return entryCount.get();
  }

  public long nextChainId() {
    return chains.nextChainId();
  }

  /** Twice the number of collapses, plus one while a collapse runs; see {@link #structureEpoch}. */
  long structureEpoch() {
    return structureEpoch.get();
  }

  /** Levels from the root to the leaves (1 when the root is a leaf). */
  public int height() throws IOException {
    try (PinnedPage root = pool.fetch(ROOT_ID).latchShared()) {
      return SlottedPage.level(root.data()) + 1;
    }
  }

  /**
   * The most pages a {@link #put} of a key and value of these lengths can dirty: the overflow
   * chain of the value (and of the key when it is too long to store inline), the leaf, and on a
   * split every node of the path plus one new page per level and two for the root; one level more
   * in case another writer splits the root meanwhile. Pages it frees need no space.
   */
  public int pagesDirtiedByPutAtMost(int keyLength, int valueLength) throws IOException {
    int chainPages = 0;
    // 32 bytes cover the largest cell header and metadata (flags, lengths, expiry, version).
    if (keyLength > maxInlineKey || (long) keyLength + valueLength + 32 > maxCell) {
      chainPages = chainPages((long) keyLength + valueLength);
    }
    int separatorPages = keyLength > maxInlineKey ? chainPages(keyLength) : 0;
    return chainPages + separatorPages + 2 * (heightAtMost() + 1) + 2;
  }

  /** The most pages a {@link #remove} can dirty: its leaf (freed overflow pages need no space). */
  public static final int PAGES_DIRTIED_BY_REMOVE = 1;

  private int chainPages(long bytes) {
    int capacity = OverflowPage.capacity(pageSize);
    return (int) Math.min(Integer.MAX_VALUE / 4, Math.max(1, (bytes + capacity - 1) / capacity));
  }

  /** {@link #height()}, read optimistically from the root's frame when it is resident. */
  private int heightAtMost() throws IOException {
    Frame f = pool.peek(ROOT_ID);
    if (f != null) {
      long stamp = f.tryOptimisticRead();
      if (stamp != 0 && f.pageId() == ROOT_ID) {
        int level = SlottedPage.level(f.data());
        if (f.validate(stamp) && level >= 0 && level < 64) {
          return level + 1;
        }
      }
    }
    return height();
  }

  BufferPool pool() {
    return pool;
  }

  OverflowChains chains() {
    return chains;
  }

  /** The clock's current time, for expiry (ms since the epoch). */
  long now() {
    return clock.millis();
  }

  // ---- reads ----

  /** Optimistic attempts before an operation falls back to latch coupling. */
  private static final int OPTIMISTIC_ATTEMPTS = 16;

  /** Deeper than any tree; bounds a descent over bytes read while they changed. */
  private static final int MAX_DEPTH = 64;

  private static final int LEAF_CODE = PageType.LEAF.code();
  private static final int BRANCH_CODE = PageType.BRANCH.code();

  /** The result of an optimistic descent: the node reached and its stamp (not yet validated). */
  static final class Probe {
    Frame frame;
    long stamp;
    /** Set when retrying cannot help (a consistent page the optimistic path does not handle). */
    boolean fallback;
  }

  /**
   * Descends without pins or latches from the root to the node at {@code level} (or the lowest
   * node above it, a leaf root) on the path of {@code key} (null: the leftmost path). Each child's
   * stamp is taken before its parent is validated, so the child was the right one at a moment when
   * both were consistent. Returns false to retry ({@code probe.fallback} false) or to fall back
   * (true); on true the caller reads {@code probe.frame} and validates {@code probe.stamp}.
   */
  boolean descendOptimistic(byte[] key, int level, Probe probe) throws IOException {
    probe.fallback = false;
    long id = ROOT_ID;
    Frame f = pool.peek(id);
    if (f == null) {
      pool.fetch(id).close(); // bring it in, then retry
      return false;
    }
    long s = f.tryOptimisticRead();
    if (s == 0) {
      return false;
    }
    try {
      for (int depth = 0; depth < MAX_DEPTH; depth++) {
        if (f.pageId() != id) {
          return false; // evicted and reused since the lookup
        }
        byte[] d = f.data();
        int type = d[PageFormat.TYPE_OFFSET];
        if (type == LEAF_CODE || (type == BRANCH_CODE && SlottedPage.level(d) <= level)) {
          probe.frame = f;
          probe.stamp = s;
          return true;
        }
        if (type != BRANCH_CODE) {
          probe.fallback = f.validate(s); // the latched path reports the damage
          return false;
        }
        int pos = key == null ? 0 : childPosOptimistic(d, key);
        if (pos < 0) {
          probe.fallback = f.validate(s); // a key overflow chain decides
          return false;
        }
        long child = BranchPage.childAt(d, pos);
        Frame c = pool.peek(child);
        if (c == null) {
          if (f.validate(s)) {
            try {
              pool.fetch(child).close(); // a miss: load the page, then retry from the root
            } catch (FreedPageException e) {
              return false; // the tree collapsed since the parent was read: retry from the root
            }
          }
          return false;
        }
        long cs = c.tryOptimisticRead();
        if (cs == 0 || !f.validate(s)) {
          return false;
        }
        f = c;
        s = cs;
        id = child;
      }
      return false;
    } catch (RuntimeException e) { // bytes read while a writer changed them, or damage
      probe.fallback = f.validate(s);
      return false;
    }
  }

  /**
   * {@link #search} on bytes read optimistically: never follows an overflow chain. Returns
   * {@link SlottedPage#NEEDS_FULL_KEY} when a key overflow chain would decide; may throw a
   * {@link RuntimeException} on inconsistent bytes.
   */
  static int searchOptimistic(byte[] d, boolean leaf, byte[] key) {
    int lo = 0;
    int hi = SlottedPage.count(d) - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = SlottedPage.compareKey(d, SlottedPage.cellOffset(d, mid), leaf, key);
      if (c == SlottedPage.NEEDS_FULL_KEY) {
        return SlottedPage.NEEDS_FULL_KEY;
      }
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -(lo + 1);
  }

  /** {@link #childPos} on bytes read optimistically; -1 when a key overflow chain decides. */
  private static int childPosOptimistic(byte[] d, byte[] key) {
    int r = searchOptimistic(d, false, key);
    if (r == SlottedPage.NEEDS_FULL_KEY) {
      return -1;
    }
    return r >= 0 ? r + 1 : -(r + 1);
  }

  /**
   * {@code len} bytes of {@code d} from {@code from}, checking the bounds first (bytes read
   * optimistically may hold any length).
   */
  static byte[] copyChecked(byte[] d, int from, int len) {
    if (len < 0 || from < 0 || from > d.length - len) {
      throw new IndexOutOfBoundsException("cell bytes [" + from + ", +" + len + ") off the page");
    }
    return Arrays.copyOfRange(d, from, from + len);
  }

  /** A marker for "fall back to latches" in {@link #getOptimistic}. */
  private static final byte[] FALL_BACK = new byte[0];

  /** A marker for "retry" in {@link #getOptimistic}. */
  private static final byte[] RETRY = new byte[0];

  /** The value of {@code key}, or null when absent or expired. */
  public byte[] get(byte[] key) throws IOException {
    return lookup(key, null);
  }

  /** The entry of {@code key} with its version and expiry, or null when absent or expired. */
  public Entry getEntry(byte[] key) throws IOException {
    long[] meta = new long[2];
    byte[] v = lookup(key, meta);
    return v == null ? null : new Entry(v, meta[0], meta[1]);
  }

  /**
   * The value of {@code key}, or null when absent or expired; when {@code meta} is not null, sets
   * {@code meta[0]} to the entry's version and {@code meta[1]} to its expiry.
   */
  private byte[] lookup(byte[] key, long[] meta) throws IOException {
    Probe probe = new Probe();
    for (int attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      byte[] v = getOptimistic(key, probe, meta);
      if (v == FALL_BACK) {
        break;
      }
      if (v != RETRY) {
        return v;
      }
      Thread.onSpinWait();
    }
    return getLatched(key, meta);
  }

  /**
   * One optimistic get: the value, null when absent or expired, {@link #RETRY} or {@link
   * #FALL_BACK}; fills {@code meta} as {@link #lookup} says.
   */
  private byte[] getOptimistic(byte[] key, Probe probe, long[] meta) throws IOException {
    if (!descendOptimistic(key, 0, probe)) {
      return probe.fallback ? FALL_BACK : RETRY;
    }
    Frame f = probe.frame;
    long s = probe.stamp;
    try {
      byte[] d = f.data();
      if (d[PageFormat.TYPE_OFFSET] != LEAF_CODE) {
        return f.validate(s) ? FALL_BACK : RETRY;
      }
      int idx = searchOptimistic(d, true, key);
      if (idx == SlottedPage.NEEDS_FULL_KEY) {
        return f.validate(s) ? FALL_BACK : RETRY;
      }
      if (idx < 0) {
        return f.validate(s) ? null : RETRY;
      }
      int off = SlottedPage.cellOffset(d, idx);
      if (LeafPage.isOverflow(d, off)) {
        return f.validate(s) ? FALL_BACK : RETRY; // chains are read under the leaf's latch
      }
      byte[] v = copyChecked(d, LeafPage.valueOffset(d, off), LeafPage.valueLength(d, off));
      long expiresAt = LeafPage.expiresAt(d, off);
      long version = meta != null ? LeafPage.version(d, off) : 0;
      if (!f.validate(s)) {
        return RETRY;
      }
      return found(v, version, expiresAt, meta);
    } catch (RuntimeException e) {
      return f.validate(s) ? FALL_BACK : RETRY;
    }
  }

  /** {@link #lookup} with shared latch coupling. */
  private byte[] getLatched(byte[] key, long[] meta) throws IOException {
    PinnedPage p = descendShared(key);
    try {
      byte[] d = p.data();
      int idx = search(d, true, key);
      if (idx < 0) {
        return null;
      }
      int off = SlottedPage.cellOffset(d, idx);
      long expiresAt = LeafPage.expiresAt(d, off);
      if (Entry.isExpired(expiresAt, now())) {
        return null; // before reading an overflow chain for nothing
      }
      long version = meta != null ? LeafPage.version(d, off) : 0;
      return found(value(d, off, false), version, expiresAt, meta);
    } finally {
      p.close();
    }
  }

  /** {@code value}, or null when expired; fills {@code meta} when not null. */
  private byte[] found(byte[] value, long version, long expiresAt, long[] meta) {
    if (expiresAt != Entry.NO_EXPIRY && Entry.isExpired(expiresAt, now())) {
      return null;
    }
    if (meta != null) {
      meta[0] = version;
      meta[1] = expiresAt;
    }
    return value;
  }

  /** Pins and shared-latches the leaf that would hold {@code key} (null: the leftmost leaf). */
  PinnedPage descendShared(byte[] key) throws IOException {
    PinnedPage p = pool.fetch(ROOT_ID).latchShared();
    try {
      while (true) {
        byte[] d = p.data();
        PageType t = checkNode(p);
        if (t == PageType.LEAF) {
          return p;
        }
        long child = key == null ? SlottedPage.link(d) : BranchPage.childAt(d, childPos(d, key));
        PinnedPage c = pool.fetch(child).latchShared();
        p.close();
        p = c;
      }
    } catch (IOException | RuntimeException | Error e) {
      p.close();
      throw e;
    }
  }

  private PageType checkNode(PinnedPage p) {
    PageType t = PageFormat.type(p.data());
    if (t != PageType.LEAF && t != PageType.BRANCH) {
      throw new CorruptionException(
          file.path(), -1, "page " + p.pageId() + " is reached as a tree node but has type " + t);
    }
    return t;
  }

  /** The value of the leaf cell at {@code off}; {@code stale} as in {@link OverflowChains#read}. */
  byte[] value(byte[] d, int off, boolean stale) throws IOException {
    if (!LeafPage.isOverflow(d, off)) {
      return LeafPage.inlineValue(d, off);
    }
    int keyLen = SlottedPage.keyLength(d, off);
    long skip = LeafPage.isKeyOverflow(d, off) ? keyLen : 0;
    return chains.read(
        LeafPage.chainFirst(d, off), LeafPage.chainId(d, off), skip, LeafPage.valueLength(d, off),
        stale);
  }

  /** The full key of the cell at {@code off}. REQUIRES: the page's latch. */
  byte[] fullKey(byte[] d, int off, boolean leaf) throws IOException {
    int keyLen = SlottedPage.keyLength(d, off);
    int ko = SlottedPage.keyOffset(d, off, leaf);
    if ((d[off] & SlottedPage.KEY_OVERFLOW) == 0) {
      return Arrays.copyOfRange(d, ko, ko + keyLen);
    }
    int ref = ko + SlottedPage.KEY_PREFIX_BYTES;
    return chains.read(FixedLE.getLong(d, ref), FixedLE.getLong(d, ref + 8), 0, keyLen, false);
  }

  /** Binary search: the index of {@code key}, or {@code -(insertion point) - 1}. */
  int search(byte[] d, boolean leaf, byte[] key) throws IOException {
    int lo = 0;
    int hi = SlottedPage.count(d) - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int off = SlottedPage.cellOffset(d, mid);
      int c = SlottedPage.compareKey(d, off, leaf, key);
      if (c == SlottedPage.NEEDS_FULL_KEY) {
        c = Arrays.compareUnsigned(fullKey(d, off, leaf), key);
      }
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -(lo + 1);
  }

  /** The child position (0 = leftmost) a branch sends {@code key} to. */
  private int childPos(byte[] d, byte[] key) throws IOException {
    int r = search(d, false, key);
    return r >= 0 ? r + 1 : -(r + 1);
  }

  // ---- writes (REQUIRES: the caller is inside the checkpoint gate) ----

  /**
   * Inserts or replaces {@code key} with {@code value}, expiring at {@code expiresAt} ({@link
   * Entry#NO_EXPIRY}: never), as version {@code version}.
   */
  public void put(byte[] key, byte[] value, long expiresAt, long version) throws IOException {
    byte[] cell = buildLeafCell(key, value, expiresAt, version);
    if (!putOptimistic(key, cell)) {
      putPessimistic(key, cell);
    }
  }

  private byte[] buildLeafCell(byte[] key, byte[] value, long expiresAt, long version)
      throws IOException {
    boolean keyOverflow = key.length > maxInlineKey;
    if (!keyOverflow) {
      int size = LeafPage.inlineCellSize(key.length, value.length, expiresAt, version);
      if (size <= maxCell) {
        byte[] cell = new byte[size];
        LeafPage.writeInlineCell(cell, 0, key, value, expiresAt, version);
        return cell;
      }
    }
    OverflowChains.Chain chain = chains.write(keyOverflow ? key : new byte[0], value);
    byte[] cell = new byte[
        LeafPage.overflowCellSize(key.length, value.length, keyOverflow, expiresAt, version)];
    LeafPage.writeOverflowCell(
        cell, 0, key, value.length, keyOverflow, chain.first(), chain.id(), expiresAt, version);
    return cell;
  }

  /**
   * Drops the leaf's cells that are expired now and frees their overflow chains, and makes the
   * leaf's expiry hint exact; a no-op (without a scan) while the hint says no cell can be expired.
   * REQUIRES: {@code leaf} latched exclusively, inside the checkpoint gate.
   */
  private void reclaimExpired(PinnedPage leaf) throws IOException {
    byte[] d = leaf.data();
    if (LeafPage.expiryHint(d) == 0) {
      return; // no cell has an expiry: do not read the clock
    }
    long now = now();
    if (!LeafPage.mayHoldExpired(d, now)) {
      return;
    }
    int dropped = 0;
    long minExpiresAt = Entry.NO_EXPIRY;
    long[] freeChains = null; // (first, chainId) pairs
    int freeCount = 0;
    for (int i = SlottedPage.count(d) - 1; i >= 0; i--) {
      int off = SlottedPage.cellOffset(d, i);
      long expiresAt = LeafPage.expiresAt(d, off);
      if (!Entry.isExpired(expiresAt, now)) {
        if (expiresAt != Entry.NO_EXPIRY
            && (minExpiresAt == Entry.NO_EXPIRY || expiresAt < minExpiresAt)) {
          minExpiresAt = expiresAt;
        }
        continue;
      }
      if (LeafPage.isOverflow(d, off)) {
        if (freeChains == null) {
          freeChains = new long[8];
        } else if (freeCount * 2 == freeChains.length) {
          freeChains = Arrays.copyOf(freeChains, freeChains.length * 2);
        }
        freeChains[freeCount * 2] = LeafPage.chainFirst(d, off);
        freeChains[freeCount * 2 + 1] = LeafPage.chainId(d, off);
        freeCount++;
      }
      SlottedPage.removeCell(d, i);
      dropped++;
    }
    LeafPage.setExpiryHint(d, minExpiresAt);
    if (dropped == 0) {
      return; // only the hint changed; the written image's looser hint is still a bound
    }
    leaf.markDirty();
    entryCount.addAndGet(-dropped);
    for (int i = 0; i < freeCount; i++) {
      chains.free(freeChains[i * 2], freeChains[i * 2 + 1]);
    }
  }

  /**
   * Returns the leaf for {@code key}, pinned and latched exclusively: descends optimistically to
   * the leaf's parent, latches the leaf, then validates the parent (so no split moved the key's
   * range away meanwhile); falls back to {@link #descendForWriteLatched}.
   */
  private PinnedPage descendForWrite(byte[] key) throws IOException {
    Probe probe = new Probe();
    for (int attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      if (!descendOptimistic(key, 1, probe)) {
        if (probe.fallback) {
          break;
        }
        Thread.onSpinWait();
        continue;
      }
      Frame f = probe.frame;
      long s = probe.stamp;
      long child;
      try {
        byte[] d = f.data();
        if (d[PageFormat.TYPE_OFFSET] != BRANCH_CODE || SlottedPage.level(d) != 1) {
          if (f.validate(s)) {
            break; // the root is a leaf
          }
          continue;
        }
        int pos = childPosOptimistic(d, key);
        if (pos < 0) {
          if (f.validate(s)) {
            break;
          }
          continue;
        }
        child = BranchPage.childAt(d, pos);
      } catch (RuntimeException e) {
        if (f.validate(s)) {
          break;
        }
        continue;
      }
      if (!f.validate(s)) {
        continue;
      }
      PinnedPage leaf = pool.fetch(child).latchExclusive();
      if (!f.validate(s)) {
        leaf.close(); // the parent changed (a split): the key may belong elsewhere now
        continue;
      }
      try {
        if (checkNode(leaf) != PageType.LEAF) {
          throw new CorruptionException(
              file.path(), -1, "page " + child + " is a child of a level-1 branch but not a leaf");
        }
      } catch (RuntimeException e) {
        leaf.close();
        throw e;
      }
      return leaf;
    }
    return descendForWriteLatched(key);
  }

  /** Descends with shared latches, the leaf exclusive; returns the leaf. */
  private PinnedPage descendForWriteLatched(byte[] key) throws IOException {
    while (true) {
      PinnedPage p = pool.fetch(ROOT_ID).latchShared();
      if (SlottedPage.level(p.data()) == 0) {
        p.unlatch();
        p.latchExclusive();
        if (SlottedPage.level(p.data()) == 0) {
          checkNode(p);
          return p;
        }
        p.close(); // the root split meanwhile
        continue;
      }
      try {
        while (true) {
          byte[] d = p.data();
          checkNode(p);
          int level = SlottedPage.level(d);
          long child = BranchPage.childAt(d, childPos(d, key));
          PinnedPage c = pool.fetch(child);
          if (level == 1) {
            c.latchExclusive();
          } else {
            c.latchShared();
          }
          p.close();
          p = c;
          if (level == 1) {
            checkNode(p);
            return p;
          }
        }
      } catch (IOException | RuntimeException | Error e) {
        p.close();
        throw e;
      }
    }
  }

  private boolean putOptimistic(byte[] key, byte[] cell) throws IOException {
    long freeFirst = 0;
    long freeId = 0;
    try (PinnedPage leaf = descendForWrite(key)) {
      reclaimExpired(leaf);
      byte[] d = leaf.data();
      int idx = search(d, true, key);
      if (idx >= 0) {
        int off = SlottedPage.cellOffset(d, idx);
        int oldSize = LeafPage.cellSize(d, off);
        boolean oldOverflow = LeafPage.isOverflow(d, off);
        if (!oldOverflow && oldSize == cell.length) {
          System.arraycopy(cell, 0, d, off, cell.length);
          LeafPage.noteCellWritten(d, off);
          leaf.markDirty();
          return true;
        }
        if (SlottedPage.freeTotal(d) + oldSize < cell.length) {
          return false;
        }
        if (oldOverflow) {
          freeFirst = LeafPage.chainFirst(d, off);
          freeId = LeafPage.chainId(d, off);
        }
        SlottedPage.removeCell(d, idx);
        SlottedPage.insertCell(d, idx, cell, 0, cell.length);
        leaf.markDirty();
        if (oldOverflow) {
          chains.free(freeFirst, freeId);
        }
        return true;
      }
      if (!SlottedPage.fits(d, cell.length)) {
        return false;
      }
      SlottedPage.insertCell(d, -(idx + 1), cell, 0, cell.length);
      leaf.markDirty();
      entryCount.incrementAndGet();
      return true;
    }
  }

  private void putPessimistic(byte[] key, byte[] cell) throws IOException {
    List<PinnedPage> path = new ArrayList<>();
    int[] positions = new int[64];
    try {
      PinnedPage p = pool.fetch(ROOT_ID).latchExclusive();
      path.add(p);
      while (checkNode(p) == PageType.BRANCH) {
        byte[] d = p.data();
        int pos = childPos(d, key);
        PinnedPage c = pool.fetch(BranchPage.childAt(d, pos)).latchExclusive();
        boolean safe =
            PageFormat.type(c.data()) == PageType.BRANCH
                ? SlottedPage.freeTotal(c.data()) >= maxCell + 2
                : SlottedPage.fits(c.data(), cell.length);
        if (safe) {
          for (PinnedPage a : path) {
            a.close();
          }
          path.clear();
        }
        positions[path.size()] = pos; // position of c within its parent (if the parent is kept)
        path.add(c);
        p = c;
      }
      PinnedPage leaf = p;
      reclaimExpired(leaf);
      byte[] d = leaf.data();
      int idx = search(d, true, key);
      long freeFirst = 0;
      long freeId = 0;
      boolean replaced = false;
      if (idx >= 0) {
        int off = SlottedPage.cellOffset(d, idx);
        if (LeafPage.isOverflow(d, off)) {
          freeFirst = LeafPage.chainFirst(d, off);
          freeId = LeafPage.chainId(d, off);
        }
        SlottedPage.removeCell(d, idx);
        replaced = true;
      } else {
        idx = -(idx + 1);
      }
      leaf.markDirty();
      insertAt(path, positions, path.size() - 1, idx, cell);
      if (!replaced) {
        entryCount.incrementAndGet();
      }
      if (freeFirst != 0) {
        chains.free(freeFirst, freeId);
      }
    } finally {
      for (PinnedPage a : path) {
        a.close();
      }
    }
  }

  /**
   * Inserts {@code cell} at slot {@code idx} of {@code path[level]}, splitting it (and its
   * ancestors, recursively) when it does not fit. REQUIRES: every page of {@code path} latched
   * exclusively; {@code positions[i]} is the child position of {@code path[i]} in {@code path[i-1]}.
   */
  private void insertAt(List<PinnedPage> path, int[] positions, int level, int idx, byte[] cell)
      throws IOException {
    PinnedPage p = path.get(level);
    byte[] d = p.data();
    if (SlottedPage.fits(d, cell.length)) {
      SlottedPage.insertCell(d, idx, cell, 0, cell.length);
      p.markDirty();
      return;
    }
    boolean leaf = PageFormat.type(d) == PageType.LEAF;
    int nodeLevel = SlottedPage.level(d);
    List<byte[]> cells = new ArrayList<>(SlottedPage.count(d) + 1);
    for (int i = 0; i < SlottedPage.count(d); i++) {
      int off = SlottedPage.cellOffset(d, i);
      cells.add(Arrays.copyOfRange(d, off, off + SlottedPage.cellSize(d, off)));
    }
    cells.add(idx, cell);
    int n = cells.size();
    int k = splitPoint(cells);
    byte[] up;
    List<byte[]> left;
    List<byte[]> right;
    long rightLink;
    if (leaf) {
      k = Math.max(1, Math.min(n - 1, k));
      left = cells.subList(0, k);
      right = cells.subList(k, n);
      up = separatorCell(cells.get(k));
      rightLink = SlottedPage.link(d);
    } else {
      k = Math.max(1, Math.min(n - 2, k));
      left = cells.subList(0, k);
      right = cells.subList(k + 1, n);
      byte[] mid = cells.get(k);
      rightLink = FixedLE.getLong(mid, mid.length - 8);
      up = mid.clone();
    }
    long rightId = file.allocatePage();
    if (p.pageId() == ROOT_ID) {
      long leftId = file.allocatePage();
      try (PinnedPage l = pool.newPage(leftId).latchExclusive();
          PinnedPage r = pool.newPage(rightId).latchExclusive()) {
        long leftLink = leaf ? rightId : SlottedPage.link(d);
        fill(l.data(), leaf, nodeLevel, leftId, leftLink, left);
        fill(r.data(), leaf, nodeLevel, rightId, leaf ? 0 : rightLink, right);
        l.markDirty();
        r.markDirty();
      }
      FixedLE.putLong(up, up.length - 8, rightId);
      SlottedPage.init(d, PageType.BRANCH, nodeLevel + 1, ROOT_ID, leftId);
      SlottedPage.insertCell(d, 0, up, 0, up.length);
      p.markDirty();
      return;
    }
    try (PinnedPage r = pool.newPage(rightId).latchExclusive()) {
      fill(r.data(), leaf, nodeLevel, rightId, rightLink, right);
      r.markDirty();
    }
    long keepLink = leaf ? rightId : SlottedPage.link(d);
    fill(d, leaf, nodeLevel, p.pageId(), keepLink, new ArrayList<>(left));
    p.markDirty();
    FixedLE.putLong(up, up.length - 8, rightId);
    insertAt(path, positions, level - 1, positions[level], up);
  }

  private void fill(byte[] d, boolean leaf, int level, long id, long link, List<byte[]> cells) {
    List<byte[]> copy = new ArrayList<>(cells); // cells may be a view of a list over d's old bytes
    SlottedPage.init(d, leaf ? PageType.LEAF : PageType.BRANCH, level, id, link);
    for (int i = 0; i < copy.size(); i++) {
      byte[] c = copy.get(i);
      SlottedPage.insertCell(d, i, c, 0, c.length);
    }
  }

  /** The index where the cells' bytes (with their slots) reach half. */
  private static int splitPoint(List<byte[]> cells) {
    long total = 0;
    for (byte[] c : cells) {
      total += c.length + 2;
    }
    long acc = 0;
    for (int i = 0; i < cells.size(); i++) {
      acc += cells.get(i).length + 2;
      if (acc * 2 >= total) {
        return i + 1;
      }
    }
    return cells.size() - 1;
  }

  /** A branch cell separating at the key of leaf cell {@code leafCell} (child filled in later). */
  private byte[] separatorCell(byte[] leafCell) throws IOException {
    byte[] key = fullKey(leafCell, 0, true);
    if (key.length <= maxInlineKey) {
      byte[] c = new byte[BranchPage.cellSizeFor(key.length, false)];
      BranchPage.writeCell(c, 0, key, false, 0, 0, 0);
      return c;
    }
    OverflowChains.Chain chain = chains.write(key, new byte[0]);
    byte[] c = new byte[BranchPage.cellSizeFor(key.length, true)];
    BranchPage.writeCell(c, 0, key, true, chain.first(), chain.id(), 0);
    return c;
  }

  /**
   * Removes {@code key}; returns whether it was present and not expired. Never merges pages (lazy
   * deletion; an emptied tree collapses at the next checkpoint).
   */
  public boolean remove(byte[] key) throws IOException {
    try (PinnedPage leaf = descendForWrite(key)) {
      reclaimExpired(leaf);
      byte[] d = leaf.data();
      int idx = search(d, true, key);
      if (idx < 0) {
        return false;
      }
      int off = SlottedPage.cellOffset(d, idx);
      long first = 0;
      long chainId = 0;
      if (LeafPage.isOverflow(d, off)) {
        first = LeafPage.chainFirst(d, off);
        chainId = LeafPage.chainId(d, off);
      }
      SlottedPage.removeCell(d, idx);
      leaf.markDirty();
      entryCount.decrementAndGet();
      if (first != 0) {
        chains.free(first, chainId);
      }
      return true;
    }
  }

  /**
   * Gives the pages of an empty tree back (docs/format/bplus.md section 7): when no leaf holds a
   * cell and the root is a branch, makes the root an empty leaf and frees every other node and the
   * overflow chains of the branches' keys. Returns whether it did. REQUIRES: writers paused and
   * every frame clean (a checkpoint's freeze, after writing the dirty pages back); readers and
   * cursors may run.
   *
   * <p>Why this is safe for readers: the structure epoch is raised first and last (cursors then
   * re-seek from the root instead of following a sibling link, see {@link TreeCursor}); the root is
   * rewritten under its write latch, so optimistic readers that read the old root retry; the old
   * nodes are freed parents before children, each after its frame's write latch was taken (by
   * {@link BufferPool#discard}, when resident), so a latched
   * reader (which holds a parent until it has latched the child) has left a node before it is
   * freed, and no reader can reach a freed node through a parent any more.
   */
  public boolean collapseIfEmpty() throws IOException {
    if (entryCount.get() != 0) {
      return false;
    }
    List<Long> nodes = new ArrayList<>(); // breadth first: parents before their children
    List<long[]> keyChains = new ArrayList<>();
    int rootLevel;
    try (PinnedPage root = pool.fetch(ROOT_ID).latchShared()) {
      if (checkNode(root) == PageType.LEAF) {
        return false;
      }
      rootLevel = SlottedPage.level(root.data());
      collectChildren(root.data(), nodes, keyChains);
    }
    // Reads the branches only; nodes from levelStart on are the leaves, whose cell count is checked
    // when they are resident (reading the others would cost a scan of the table).
    int levelStart = 0;
    for (int level = rootLevel - 1; level >= 1; level--) {
      int levelEnd = nodes.size();
      for (int i = levelStart; i < levelEnd; i++) {
        try (PinnedPage p = pool.fetch(nodes.get(i)).latchShared()) {
          if (checkNode(p) != PageType.BRANCH || SlottedPage.level(p.data()) != level) {
            throw new CorruptionException(file.path(), -1, "page " + p.pageId() + " is a child of"
                + " a level " + (level + 1) + " branch but not a level " + level + " branch");
          }
          collectChildren(p.data(), nodes, keyChains);
        }
      }
      levelStart = levelEnd;
    }
    for (int i = levelStart; i < nodes.size(); i++) {
      if (pool.peek(nodes.get(i)) == null) {
        continue;
      }
      try (PinnedPage p = pool.fetch(nodes.get(i)).latchShared()) {
        if (checkNode(p) != PageType.LEAF || SlottedPage.count(p.data()) != 0) {
          throw new CorruptionException(file.path(), -1, "page " + p.pageId() + " is not an empty"
              + " leaf, but the entry count is 0");
        }
      }
    }
    structureEpoch.incrementAndGet();
    try {
      try (PinnedPage root = pool.fetch(ROOT_ID).latchExclusive()) {
        SlottedPage.init(root.data(), PageType.LEAF, 0, ROOT_ID, 0);
        root.markDirty();
      }
      for (long id : nodes) {
        // discard() takes the frame's write latch when the node is resident, so it waits for a
        // latched reader still inside; none can enter afterwards (its parent is gone already).
        pool.discard(id);
        file.freePage(id);
      }
      for (long[] chain : keyChains) {
        chains.free(chain[0], chain[1]);
      }
    } finally {
      structureEpoch.incrementAndGet();
    }
    return true;
  }

  /** Adds the children of branch {@code d} to {@code nodes} and its key chains to {@code keyChains}. */
  private static void collectChildren(byte[] d, List<Long> nodes, List<long[]> keyChains) {
    int n = SlottedPage.count(d);
    for (int pos = 0; pos <= n; pos++) {
      nodes.add(BranchPage.childAt(d, pos));
    }
    for (int i = 0; i < n; i++) {
      int off = SlottedPage.cellOffset(d, i);
      if (BranchPage.isKeyOverflow(d, off)) {
        int ref = BranchPage.chainRefOffset(d, off);
        keyChains.add(new long[] {FixedLE.getLong(d, ref), FixedLE.getLong(d, ref + 8)});
      }
    }
  }

  /** A cursor over {@code [from, to)}; null bounds are open. Expired entries are skipped. */
  public TreeCursor newCursor(byte[] from, byte[] to) {
    return new TreeCursor(this, from, to, false);
  }

  /** {@link #newCursor}, but expired entries are returned too (for the store's active expiry). */
  public TreeCursor newCursorIncludingExpired(byte[] from, byte[] to) {
    return new TreeCursor(this, from, to, true);
  }

  /**
   * Checks the tree's invariants (tests; REQUIRES: no concurrent writers): keys strictly ascending
   * within and across pages and within their parents' bounds, every leaf at level 0 and every
   * child one level below its parent, the leaf chain equal to the in-order leaves, overflow chains
   * intact, the entry count right, and every live logical page reachable exactly once.
   *
   * @throws IllegalStateException describing the first violation
   */
  public void checkInvariants() throws IOException {
    new TreeChecker(this).check();
  }

  PageFile file() {
    return file;
  }
}
