package org.kvstore.bplus.tree;

import java.io.IOException;
import java.util.Arrays;
import org.kvstore.CorruptionException;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.StorageIOException;
import org.kvstore.bplus.buffer.Frame;
import org.kvstore.bplus.buffer.FreedPageException;
import org.kvstore.bplus.buffer.PinnedPage;
import org.kvstore.bplus.page.LeafPage;
import org.kvstore.bplus.page.PageFormat;
import org.kvstore.bplus.page.PageType;
import org.kvstore.bplus.page.SlottedPage;

/**
 * A forward cursor over {@code [from, to)} that walks the leaf chain (docs/format/bplus.md section
 * 6). It copies the entries of one leaf, optimistically (without pin or latch, validating the
 * leaf's version afterwards) or under the leaf's shared latch when that fails, so it pins nothing
 * between calls; it resumes at the copied leaf's right sibling and
 * skips keys at or below the last one returned. Because splits only move keys rightwards and
 * pages leave the chain only when the whole tree collapses ({@link BPlusTree#collapseIfEmpty}),
 * after which the cursor seeks its resume point from the root instead of following the link, each
 * key is returned at most once, in ascending order, with a value it held at some moment during the
 * scan. An entry expired when the cursor reaches it (by the
 * tree's clock) is skipped, unless the cursor includes expired entries (the store's active expiry).
 *
 * <p>Overflow values are read when the cursor reaches them, without the leaf's latch; a chain
 * freed or reused meanwhile is detected by its id, and the key is then read again through the
 * tree (and skipped when it was removed).
 *
 * <p>Thread safety: confined to one thread.
 */
public final class TreeCursor implements Cursor {
  private final BPlusTree tree;
  private final byte[] from;
  private final byte[] to;
  private final boolean includeExpired;

  private byte[][] keys = new byte[0][];
  private Object[] values = new Object[0];
  private long[] versions = new long[0];
  private long[] expiries = new long[0];
  private int count;
  private int pos;
  private byte[] lastKey;
  private long nextLeaf;
  /** The tree's structure epoch when {@code nextLeaf} was read. */
  private long linkEpoch;
  private long copiedLink;
  private boolean started;
  private boolean done;
  private byte[] currentKey;
  private byte[] currentValue;
  private long currentVersion;
  private long currentExpiresAt;

  TreeCursor(BPlusTree tree, byte[] from, byte[] to, boolean includeExpired) {
    this.tree = tree;
    this.from = from;
    this.to = to;
    this.includeExpired = includeExpired;
    if (from != null && to != null && Arrays.compareUnsigned(from, to) >= 0) {
      done = true;
    }
  }

  /** An overflow value not read yet. */
  private record OverflowRef(long first, long chainId, long skip, int length) {}

  @Override
  public boolean next() {
    try {
      while (true) {
        if (pos < count) {
          byte[] k = keys[pos];
          Object v = values[pos];
          long version = versions[pos];
          long expiresAt = expiries[pos];
          keys[pos] = null;
          values[pos] = null;
          pos++;
          if (to != null && Arrays.compareUnsigned(k, to) >= 0) {
            finish();
            return false;
          }
          if (!includeExpired && expiresAt != Entry.NO_EXPIRY && Entry.isExpired(expiresAt, tree.now())) {
            lastKey = k;
            continue;
          }
          byte[] value;
          if (v instanceof OverflowRef r) {
            value = readOverflow(r);
            if (value == null) {
              Entry e = tree.getEntry(k); // the chain changed: read the key's current entry
              if (e == null) {
                lastKey = k;
                continue; // removed (or expired) since the leaf was copied
              }
              value = e.value();
              version = e.version();
              expiresAt = e.expiresAt();
            }
          } else {
            value = (byte[]) v;
          }
          lastKey = k;
          currentKey = k;
          currentValue = value;
          currentVersion = version;
          currentExpiresAt = expiresAt;
          return true;
        }
        if (done) {
          currentKey = null;
          currentValue = null;
          return false;
        }
        fill();
      }
    } catch (IOException e) {
      throw new StorageIOException(tree.file().path(), "scan", e);
    }
  }

  /** The overflow value, or null when its chain was freed or reused since the leaf was copied. */
  private byte[] readOverflow(OverflowRef r) throws IOException {
    try {
      return tree.chains().read(r.first(), r.chainId(), r.skip(), r.length(), true);
    } catch (OverflowChains.StaleChainException e) {
      return null;
    }
  }

  private void fill() throws IOException {
    if (started && nextLeaf == 0) {
      finish();
      return;
    }
    while (true) {
      long epoch = tree.structureEpoch();
      // Pages left the tree since the link was read: it may name a freed or reused page.
      boolean seek = !started || epoch != linkEpoch;
      if (fillOptimistic(seek)) {
        if (commit(epoch)) {
          return;
        }
        continue;
      }
      PinnedPage leaf;
      try {
        leaf = seek ? tree.descendShared(seekKey()) : tree.pool().fetch(nextLeaf).latchShared();
      } catch (FreedPageException e) {
        if (stable(epoch)) {
          throw e;
        }
        Thread.yield();
        continue;
      }
      try (leaf) {
        if (!stable(epoch)) {
          Thread.yield();
          continue;
        }
        byte[] d = leaf.data();
        if (PageFormat.type(d) != PageType.LEAF) {
          throw new CorruptionException(
              tree.file().path(), -1, "leaf chain reaches page " + leaf.pageId() + " of type "
                  + PageFormat.type(d));
        }
        copyLeaf(d, false);
      }
      if (commit(epoch)) {
        return;
      }
    }
  }

  /**
   * Keeps the leaf just copied when {@code epoch} is even (no collapse was running) and unchanged
   * (none ran since), so the leaf and its link were part of the tree when copied; otherwise drops
   * the copy (the caller seeks again from the root).
   */
  private boolean commit(long epoch) {
    if (!stable(epoch)) {
      count = 0;
      pos = 0;
      Thread.yield(); // a collapse is running: its pages may be leaving the tree under this copy
      return false;
    }
    started = true;
    linkEpoch = epoch;
    nextLeaf = copiedLink;
    return true;
  }

  /** Whether no collapse ran since {@code epoch} was read, nor while it was read. */
  private boolean stable(long epoch) {
    return (epoch & 1) == 0 && tree.structureEpoch() == epoch;
  }

  /** Where a descent from the root resumes: the last key returned, else the lower bound. */
  private byte[] seekKey() {
    return lastKey != null ? lastKey : from;
  }

  /**
   * Copies the next leaf without pinning or latching it: the leaf {@code nextLeaf} names, or with
   * {@code seek} the leaf a descent for {@link #seekKey()} reaches. False when it must be done
   * under the latch (the leaf is not resident, changed too often, or holds a key in an overflow
   * chain). The caller commits the copy.
   */
  private boolean fillOptimistic(boolean seek) throws IOException {
    BPlusTree.Probe probe = seek ? new BPlusTree.Probe() : null;
    byte[] seekKey = seekKey();
    for (int attempt = 0; attempt < 4; attempt++) {
      Frame f;
      long s;
      if (probe != null) {
        if (!tree.descendOptimistic(seekKey, 0, probe)) {
          if (probe.fallback) {
            return false;
          }
          continue;
        }
        f = probe.frame;
        s = probe.stamp;
      } else {
        f = tree.pool().peek(nextLeaf);
        if (f == null) {
          return false;
        }
        s = f.tryOptimisticRead();
        if (s == 0) {
          Thread.onSpinWait();
          continue;
        }
        if (f.pageId() != nextLeaf) {
          return false;
        }
      }
      byte[] d = f.data();
      try {
        if (d[PageFormat.TYPE_OFFSET] != PageType.LEAF.code()) {
          if (f.validate(s)) {
            return false;
          }
          continue;
        }
        if (!copyLeaf(d, true)) {
          if (f.validate(s)) {
            return false;
          }
          continue;
        }
      } catch (RuntimeException e) {
        if (f.validate(s)) {
          return false;
        }
        continue;
      }
      if (f.validate(s)) {
        return true;
      }
      count = 0; // discard what was copied from a changing page
      pos = 0;
    }
    return false;
  }

  /**
   * Copies the entries at or after the resume point into {@code keys}/{@code values} and the
   * right sibling into {@code copiedLink} (the caller commits it to {@code nextLeaf}). With {@code optimistic}, the bytes may be changing: bounds are checked, no
   * overflow chain is read, and false is returned when a key overflow chain is needed.
   */
  private boolean copyLeaf(byte[] d, boolean optimistic) throws IOException {
    int n = SlottedPage.count(d);
    if (n > d.length / 2) {
      throw new IndexOutOfBoundsException("leaf count " + n);
    }
    int start = 0;
    byte[] bound = lastKey != null ? lastKey : from;
    if (bound != null) {
      int idx = optimistic ? BPlusTree.searchOptimistic(d, true, bound) : tree.search(d, true, bound);
      if (idx == SlottedPage.NEEDS_FULL_KEY) {
        return false;
      }
      start = idx >= 0 ? (lastKey != null ? idx + 1 : idx) : -(idx + 1);
    }
    if (keys.length < n - start) {
      keys = new byte[n - start][];
      values = new Object[n - start];
      versions = new long[n - start];
      expiries = new long[n - start];
    }
    int c = 0;
    for (int i = start; i < n; i++) {
      int off = SlottedPage.cellOffset(d, i);
      byte[] k;
      if (LeafPage.isKeyOverflow(d, off)) {
        if (optimistic) {
          return false;
        }
        k = tree.fullKey(d, off, true);
      } else {
        k = BPlusTree.copyChecked(
            d, SlottedPage.keyOffset(d, off, true), SlottedPage.keyLength(d, off));
      }
      keys[c] = k;
      if (LeafPage.isOverflow(d, off)) {
        long skip = LeafPage.isKeyOverflow(d, off) ? k.length : 0;
        values[c] =
            new OverflowRef(LeafPage.chainFirst(d, off), LeafPage.chainId(d, off), skip,
                LeafPage.valueLength(d, off));
      } else {
        values[c] =
            BPlusTree.copyChecked(d, LeafPage.valueOffset(d, off), LeafPage.valueLength(d, off));
      }
      versions[c] = LeafPage.version(d, off);
      expiries[c] = LeafPage.expiresAt(d, off);
      c++;
      if (to != null && Arrays.compareUnsigned(k, to) >= 0) {
        break; // later keys are out of range too
      }
    }
    count = c;
    pos = 0;
    copiedLink = SlottedPage.link(d);
    return true;
  }

  private void finish() {
    done = true;
    count = 0;
    pos = 0;
  }

  @Override
  public byte[] key() {
    return currentKey;
  }

  @Override
  public long version() {
    return currentVersion;
  }

  @Override
  public long expiresAt() {
    return currentExpiresAt;
  }

  @Override
  public byte[] value() {
    return currentValue;
  }

  @Override
  public void close() {
    finish();
    keys = new byte[0][];
    values = new Object[0];
    versions = new long[0];
    expiries = new long[0];
  }
}
