package org.kvstore.lsm;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Map;
import java.util.TreeMap;

/**
 * The snapshot sequence numbers of a table's open cursors, so that the memtable can drop the
 * versions of a key no open cursor can see ({@link org.kvstore.lsm.memtable.MemTable#add}).
 *
 * <p>A cursor registers its snapshot under the table's write fence (no insert half done), so a
 * writer that reads {@link #oldest()} afterwards sees it; a writer that read it before could not
 * have been asked to keep anything for it, since the snapshot is at or above every number that
 * writer inserts under the fence. A stale read after a release only keeps versions longer.
 *
 * <p>Thread safety: {@link #register} and {@link #release} hold this object's monitor;
 * {@link #oldest()} is a volatile read without it.
 */
final class OpenSnapshots {
  /** What {@link #oldest()} returns when no cursor is open. */
  static final long NONE = Long.MAX_VALUE;

  /** Snapshot sequence number to the number of cursors open on it. */
  @GuardedBy("this")
  private final TreeMap<Long, Integer> open = new TreeMap<>();
  private volatile long oldest = NONE;

  /** Records one more cursor at {@code snapshotSeq}; pair it with one {@link #release}. */
  synchronized void register(long snapshotSeq) {
    open.merge(snapshotSeq, 1, Integer::sum);
    oldest = open.firstKey();
  }

  /** Forgets one cursor at {@code snapshotSeq}. */
  synchronized void release(long snapshotSeq) {
    Integer n = open.get(snapshotSeq);
    if (n == null) {
      throw new IllegalStateException("snapshot " + snapshotSeq + " released more often than registered");
    }
    if (n == 1) {
      open.remove(snapshotSeq);
    } else {
      open.put(snapshotSeq, n - 1);
    }
    Map.Entry<Long, Integer> first = open.firstEntry();
    oldest = first == null ? NONE : first.getKey();
  }

  /** The smallest snapshot of an open cursor, or {@link #NONE}. */
  long oldest() {
    return oldest;
  }
}
