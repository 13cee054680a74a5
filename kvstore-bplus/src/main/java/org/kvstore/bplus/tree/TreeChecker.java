package org.kvstore.bplus.tree;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.kvstore.bplus.buffer.PinnedPage;
import org.kvstore.bplus.page.BranchPage;
import org.kvstore.bplus.page.LeafPage;
import org.kvstore.bplus.page.PageFormat;
import org.kvstore.bplus.page.PageType;
import org.kvstore.bplus.page.SlottedPage;
import org.kvstore.codec.FixedLE;

/**
 * The invariant check behind {@link BPlusTree#checkInvariants()}: a full walk of the tree.
 *
 * <p>Thread safety: confined; REQUIRES no concurrent writers.
 */
final class TreeChecker {
  private final BPlusTree tree;
  private final Set<Long> visited = new HashSet<>();
  private final List<Long> leaves = new ArrayList<>();
  private long entries;

  TreeChecker(BPlusTree tree) {
    this.tree = tree;
  }

  void check() throws IOException {
    int rootLevel;
    try (PinnedPage root = tree.pool().fetch(BPlusTree.ROOT_ID).latchShared()) {
      rootLevel = SlottedPage.level(root.data());
    }
    walk(BPlusTree.ROOT_ID, rootLevel, null, null);
    long id = leaves.get(0);
    for (int i = 0; i < leaves.size(); i++) {
      if (id != leaves.get(i)) {
        fail("leaf chain reaches page " + id + " where the in-order walk has leaf " + leaves.get(i));
      }
      try (PinnedPage p = tree.pool().fetch(id).latchShared()) {
        id = SlottedPage.link(p.data());
      }
    }
    if (id != 0) {
      fail("the last leaf links to page " + id);
    }
    if (entries != tree.entryCount()) {
      fail("the leaves hold " + entries + " entries, the entry count says " + tree.entryCount());
    }
    long live = tree.file().livePages();
    if (live != visited.size()) {
      fail(live + " logical pages are allocated but " + visited.size() + " are reachable");
    }
  }

  private void walk(long pageId, int level, byte[] low, byte[] high) throws IOException {
    if (!visited.add(pageId)) {
      fail("page " + pageId + " is reachable twice");
    }
    byte[] d;
    try (PinnedPage p = tree.pool().fetch(pageId).latchShared()) {
      d = p.data().clone();
    }
    PageType type = PageFormat.type(d);
    if (PageFormat.pageId(d) != pageId) {
      fail("page " + pageId + " carries id " + PageFormat.pageId(d));
    }
    if (SlottedPage.level(d) != level) {
      fail("page " + pageId + " has level " + SlottedPage.level(d) + ", expected " + level);
    }
    if ((level == 0) != (type == PageType.LEAF) || (level > 0 && type != PageType.BRANCH)) {
      fail("page " + pageId + " of type " + type + " at level " + level);
    }
    boolean leaf = type == PageType.LEAF;
    int n = SlottedPage.count(d);
    checkLayout(pageId, d, n);
    byte[][] keys = new byte[n][];
    for (int i = 0; i < n; i++) {
      int off = SlottedPage.cellOffset(d, i);
      keys[i] = tree.fullKey(d, off, leaf);
      if (i > 0 && Arrays.compareUnsigned(keys[i - 1], keys[i]) >= 0) {
        fail("page " + pageId + ": keys " + (i - 1) + " and " + i + " out of order");
      }
      if (low != null && Arrays.compareUnsigned(keys[i], low) < 0) {
        fail("page " + pageId + ": key " + i + " below its parent's bound");
      }
      if (high != null && Arrays.compareUnsigned(keys[i], high) >= 0) {
        fail("page " + pageId + ": key " + i + " at or above its parent's bound");
      }
      if ((d[off] & SlottedPage.KEY_OVERFLOW) != 0 || (leaf && LeafPage.isOverflow(d, off))) {
        long first;
        long chainId;
        long bytes;
        if (leaf) {
          first = LeafPage.chainFirst(d, off);
          chainId = LeafPage.chainId(d, off);
          bytes = (LeafPage.isKeyOverflow(d, off) ? keys[i].length : 0)
              + (long) LeafPage.valueLength(d, off);
        } else {
          int ref = BranchPage.chainRefOffset(d, off);
          first = FixedLE.getLong(d, ref);
          chainId = FixedLE.getLong(d, ref + 8);
          bytes = keys[i].length;
        }
        visitChain(first, chainId, bytes);
      }
    }
    if (leaf) {
      checkExpiryHint(pageId, d, n);
      entries += n;
      leaves.add(pageId);
      return;
    }
    for (int pos = 0; pos <= n; pos++) {
      long child = BranchPage.childAt(d, pos);
      byte[] lo = pos == 0 ? low : keys[pos - 1];
      byte[] hi = pos == n ? high : keys[pos];
      walk(child, level - 1, lo, hi);
    }
  }

  /** The leaf's expiry hint is a lower bound of its cells' expiry times (LeafPage#expiryHint). */
  private void checkExpiryHint(long pageId, byte[] d, int n) {
    long hint = LeafPage.expiryHint(d);
    for (int i = 0; i < n; i++) {
      long expiresAt = LeafPage.expiresAt(d, SlottedPage.cellOffset(d, i));
      if (expiresAt == org.kvstore.Entry.NO_EXPIRY) {
        continue;
      }
      if (hint == 0 || (hint > 1 && expiresAt < (hint - 1) * 1000)) {
        fail("leaf " + pageId + ": cell " + i + " expires at " + expiresAt + ", below the page's"
            + " expiry hint " + hint);
      }
    }
  }

  private void visitChain(long first, long chainId, long bytes) throws IOException {
    tree.chains().countPages(first, chainId, bytes);
    long id = first;
    while (id != 0) {
      if (!visited.add(id)) {
        fail("overflow page " + id + " is reachable twice");
      }
      try (PinnedPage p = tree.pool().fetch(id).latchShared()) {
        id = org.kvstore.bplus.page.OverflowPage.next(p.data());
      }
    }
  }

  private void checkLayout(long pageId, byte[] d, int n) {
    int slotsEnd = PageFormat.PAGE_HEADER_BYTES + 2 * n;
    int[][] spans = new int[n][];
    long live = 0;
    for (int i = 0; i < n; i++) {
      int off = SlottedPage.cellOffset(d, i);
      if (off < slotsEnd || off >= d.length) {
        fail("page " + pageId + ": cell " + i + " at offset " + off + " outside the cell area");
      }
      int size = SlottedPage.cellSize(d, off);
      if (off + size > d.length) {
        fail("page " + pageId + ": cell " + i + " runs past the page end");
      }
      spans[i] = new int[] {off, off + size};
      live += size;
    }
    Arrays.sort(spans, (a, b) -> Integer.compare(a[0], b[0]));
    for (int i = 1; i < n; i++) {
      if (spans[i][0] < spans[i - 1][1]) {
        fail("page " + pageId + ": cells overlap at offset " + spans[i][0]);
      }
    }
    long free = SlottedPage.freeTotal(d);
    if (slotsEnd + live + free != d.length) {
      fail("page " + pageId + ": header " + slotsEnd + " + cells " + live + " + free " + free
          + " != page size " + d.length);
    }
  }

  private static void fail(String msg) {
    throw new IllegalStateException("B+tree invariant violated: " + msg);
  }
}
