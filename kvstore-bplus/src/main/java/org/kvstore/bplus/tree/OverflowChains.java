package org.kvstore.bplus.tree;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.CorruptionException;
import org.kvstore.bplus.buffer.BufferPool;
import org.kvstore.bplus.buffer.FreedPageException;
import org.kvstore.bplus.buffer.PageFile;
import org.kvstore.bplus.buffer.PinnedPage;
import org.kvstore.bplus.page.OverflowPage;
import org.kvstore.bplus.page.PageFormat;
import org.kvstore.bplus.page.PageType;

/**
 * Overflow page chains (docs/format/bplus.md section 3.4): large values, and keys too long to
 * store inline, written over as many pages as they need.
 *
 * <p>Thread safety: thread-safe. A chain is written before the cell naming it is published and
 * freed while its owner's page is latched exclusively; readers holding the owner's latch see a
 * stable chain, and readers without it ({@link #read} with {@code stale} true) detect a freed or
 * reused chain through its id.
 */
final class OverflowChains {
  private final BufferPool pool;
  private final PageFile file;
  private final int capacity;
  private final AtomicLong nextChainId;

  OverflowChains(BufferPool pool, long nextChainId) {
    this.pool = pool;
    this.file = pool.file();
    this.capacity = OverflowPage.capacity(pool.pageSize());
    this.nextChainId = new AtomicLong(nextChainId);
  }

  long nextChainId() {
    return nextChainId.get();
  }

  /** A written chain: its first page and id. */
  record Chain(long first, long id) {}

  /** Writes {@code a} followed by {@code b} into a new chain. */
  Chain write(byte[] a, byte[] b) throws IOException {
    long total = (long) a.length + b.length;
    int pages = (int) Math.max(1, (total + capacity - 1) / capacity);
    long id = nextChainId.getAndIncrement();
    long[] ids = new long[pages];
    for (int i = 0; i < pages; i++) {
      ids[i] = file.allocatePage();
    }
    byte[] staging = null;
    long pos = 0;
    for (int i = 0; i < pages; i++) {
      int len = (int) Math.min(capacity, total - pos);
      byte[] src;
      int from;
      if (pos + len <= a.length) {
        src = a;
        from = (int) pos;
      } else if (pos >= a.length) {
        src = b;
        from = (int) (pos - a.length);
      } else {
        if (staging == null) {
          staging = new byte[capacity];
        }
        int fromA = (int) (a.length - pos);
        System.arraycopy(a, (int) pos, staging, 0, fromA);
        System.arraycopy(b, 0, staging, fromA, len - fromA);
        src = staging;
        from = 0;
      }
      try (PinnedPage p = pool.newPage(ids[i]).latchExclusive()) {
        OverflowPage.init(p.data(), ids[i], id, i + 1 < pages ? ids[i + 1] : 0, src, from, len);
        p.markDirty();
      }
      pos += len;
    }
    return new Chain(ids[0], id);
  }

  /**
   * Reads {@code len} bytes at chain offset {@code skip} of chain {@code chainId} into a new array.
   *
   * @param stale whether the caller does not hold the owner's latch: then a freed or reused chain
   *     throws {@link StaleChainException} instead of {@link CorruptionException}
   */
  byte[] read(long first, long chainId, long skip, int len, boolean stale) throws IOException {
    byte[] out = new byte[len];
    long pageId = first;
    long pos = 0;
    int copied = 0;
    while (copied < len) {
      if (pageId == 0) {
        throw broken(pageId, stale, "chain " + chainId + " ends after " + pos + " bytes");
      }
      PinnedPage p;
      try {
        p = pool.fetch(pageId);
      } catch (FreedPageException e) {
        throw broken(pageId, true, e.getMessage());
      }
      try (p) {
        p.latchShared();
        byte[] d = p.data();
        if (PageFormat.type(d) != PageType.OVERFLOW || OverflowPage.chainId(d) != chainId) {
          throw broken(pageId, stale, "page " + pageId + " is not part of overflow chain " + chainId);
        }
        int n = OverflowPage.length(d);
        if (n < 0 || n > capacity) {
          throw broken(pageId, stale, "overflow page " + pageId + " has bad length " + n);
        }
        long end = pos + n;
        if (end > skip) {
          int start = (int) Math.max(0, skip - pos);
          int take = Math.min(n - start, len - copied);
          System.arraycopy(d, PageFormat.PAGE_HEADER_BYTES + start, out, copied, take);
          copied += take;
        }
        pos = end;
        pageId = OverflowPage.next(d);
      }
    }
    return out;
  }

  private RuntimeException broken(long pageId, boolean stale, String detail) {
    if (stale) {
      return new StaleChainException(detail);
    }
    return new CorruptionException(file.path(), -1, detail);
  }

  /** Frees every page of the chain. REQUIRES: the owner's exclusive latch (or sole ownership). */
  void free(long first, long chainId) throws IOException {
    long pageId = first;
    while (pageId != 0) {
      long next;
      try (PinnedPage p = pool.fetch(pageId).latchShared()) {
        byte[] d = p.data();
        if (PageFormat.type(d) != PageType.OVERFLOW || OverflowPage.chainId(d) != chainId) {
          throw new CorruptionException(
              file.path(), -1, "page " + pageId + " is not part of overflow chain " + chainId);
        }
        next = OverflowPage.next(d);
      }
      pool.discard(pageId);
      file.freePage(pageId);
      pageId = next;
    }
  }

  /** Counts the chain's pages, checking each (invariant checks). */
  int countPages(long first, long chainId, long expectedBytes) throws IOException {
    long pageId = first;
    long bytes = 0;
    int pages = 0;
    while (pageId != 0) {
      try (PinnedPage p = pool.fetch(pageId).latchShared()) {
        byte[] d = p.data();
        if (PageFormat.type(d) != PageType.OVERFLOW || OverflowPage.chainId(d) != chainId) {
          throw new IllegalStateException("page " + pageId + " is not part of chain " + chainId);
        }
        bytes += OverflowPage.length(d);
        pageId = OverflowPage.next(d);
        pages++;
      }
    }
    if (bytes != expectedBytes) {
      throw new IllegalStateException(
          "chain " + chainId + " holds " + bytes + " bytes, its cell says " + expectedBytes);
    }
    return pages;
  }

  /** A chain read without its owner's latch was freed or reused meanwhile. */
  static final class StaleChainException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StaleChainException(String detail) {
      super(detail, null, false, false);
    }
  }
}
