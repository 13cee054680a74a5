package org.kvstore.lsm.cursor;

import java.io.IOException;
import java.util.List;
import org.kvstore.lsm.key.InternalKeyComparator;
import org.kvstore.lsm.key.ValueKind;

/**
 * Merges child cursors into one stream in internal-key order (user key ascending, sequence number
 * descending), so the first entry of each user key is its newest version among the children. Keeps
 * every entry; callers skip older versions and tombstones.
 *
 * <p>A binary min-heap of the valid children; a child's position is compared through its cached
 * user key, so each move costs O(log n) comparisons.
 *
 * <p>Thread safety: confined to one thread.
 */
public final class MergingCursor implements InternalCursor {
  private final InternalCursor[] children;
  private final byte[][] keys;
  private final long[] seqs;
  private final int[] heap;
  private int size;

  public MergingCursor(List<InternalCursor> children) {
    this.children = children.toArray(new InternalCursor[0]);
    this.keys = new byte[this.children.length][];
    this.seqs = new long[this.children.length];
    this.heap = new int[this.children.length];
  }

  @Override
  public boolean isValid() {
    return size > 0;
  }

  @Override
  public void seekToFirst() throws IOException {
    for (InternalCursor c : children) {
      c.seekToFirst();
    }
    rebuild();
  }

  @Override
  public void seek(byte[] userKey, long seqNum) throws IOException {
    for (InternalCursor c : children) {
      c.seek(userKey, seqNum);
    }
    rebuild();
  }

  private void rebuild() {
    size = 0;
    for (int i = 0; i < children.length; i++) {
      if (children[i].isValid()) {
        capture(i);
        heap[size++] = i;
      }
    }
    for (int i = size / 2 - 1; i >= 0; i--) {
      siftDown(i);
    }
  }

  private void capture(int child) {
    keys[child] = children[child].userKey();
    seqs[child] = children[child].seqNum();
  }

  private boolean less(int a, int b) {
    int c = InternalKeyComparator.compare(keys[a], seqs[a], 0, keys[b], seqs[b], 0);
    return c < 0 || (c == 0 && a < b);
  }

  private void siftDown(int i) {
    for (;;) {
      int l = 2 * i + 1;
      if (l >= size) {
        return;
      }
      int m = l;
      if (l + 1 < size && less(heap[l + 1], heap[l])) {
        m = l + 1;
      }
      if (!less(heap[m], heap[i])) {
        return;
      }
      int t = heap[i];
      heap[i] = heap[m];
      heap[m] = t;
      i = m;
    }
  }

  @Override
  public void next() throws IOException {
    int top = heap[0];
    InternalCursor c = children[top];
    c.next();
    if (c.isValid()) {
      capture(top);
    } else {
      keys[top] = null;
      heap[0] = heap[--size];
    }
    siftDown(0);
  }

  @Override
  public byte[] userKey() {
    return keys[heap[0]];
  }

  @Override
  public long seqNum() {
    return seqs[heap[0]];
  }

  @Override
  public ValueKind kind() {
    return children[heap[0]].kind();
  }

  @Override
  public long version() {
    return children[heap[0]].version();
  }

  @Override
  public long expiresAt() {
    return children[heap[0]].expiresAt();
  }

  @Override
  public byte[] value() throws IOException {
    return children[heap[0]].value();
  }

  @Override
  public void close() {
    for (InternalCursor c : children) {
      c.close();
    }
    size = 0;
  }
}
