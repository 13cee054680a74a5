package org.kvstore.lsm.memtable;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.lsm.cursor.InternalCursor;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.ValueKind;

/**
 * The in-memory write buffer: a concurrent skip list of internal keys. Writers add entries with
 * unique sequence numbers; readers see, for each user key, the newest entry at or below their
 * snapshot sequence number. Once full, the table makes it immutable (no more adds) and a background
 * thread writes it to an SSTable.
 *
 * <p>Memory: {@link #approximateBytes()} counts key and value bytes plus {@link #ENTRY_OVERHEAD}
 * per entry, an estimate of the skip-list node, the key object and array headers.
 *
 * <p>Thread safety: thread-safe and lock-free ({@link ConcurrentSkipListMap}); cursors are weakly
 * consistent and filter entries above their snapshot.
 */
public final class MemTable {
  /** Estimated heap bytes per entry beyond key and value bytes. */
  public static final int ENTRY_OVERHEAD = 120;
  private static final byte[] EMPTY = new byte[0];

  private final ConcurrentSkipListMap<InternalKey, byte[]> map = new ConcurrentSkipListMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong maxSeqNum = new AtomicLong();

  /**
   * Adds one entry. REQUIRES: {@code seqNum} is unique in this memtable; {@code value} is ignored
   * for a delete. The arrays are kept, not copied.
   *
   * @return the approximate size of the memtable after the add
   */
  public long add(byte[] userKey, long seqNum, ValueKind kind, byte[] value) {
    byte[] v = kind == ValueKind.DELETE ? EMPTY : value;
    map.put(new InternalKey(userKey, seqNum, kind), v);
    long prev;
    do {
      prev = maxSeqNum.get();
    } while (seqNum > prev && !maxSeqNum.compareAndSet(prev, seqNum));
    return bytes.addAndGet(userKey.length + v.length + ENTRY_OVERHEAD);
  }

  /**
   * The newest entry of {@code userKey} with a sequence number at or below {@code snapshotSeq}, or
   * {@code null} when the memtable has none. The caller checks the kind (a delete hides older
   * entries in older sources).
   */
  public Map.Entry<InternalKey, byte[]> get(byte[] userKey, long snapshotSeq) {
    Map.Entry<InternalKey, byte[]> e = map.ceilingEntry(InternalKey.seekKey(userKey, snapshotSeq));
    if (e == null || !java.util.Arrays.equals(e.getKey().userKey(), userKey)) {
      return null;
    }
    return e;
  }

  public long approximateBytes() {
    return bytes.get();
  }

  public boolean isEmpty() {
    return map.isEmpty();
  }

  /** The number of entries (all versions); O(n), for statistics and flushes. */
  public int entryCount() {
    return map.size();
  }

  /** The largest sequence number added, 0 when empty. */
  public long maxSeqNum() {
    return maxSeqNum.get();
  }

  /** A cursor over the entries with sequence numbers at or below {@code snapshotSeq}. */
  public InternalCursor newCursor(long snapshotSeq) {
    return new MemTableCursor(snapshotSeq);
  }

  /** Thread safety: confined. */
  private final class MemTableCursor implements InternalCursor {
    private final long snapshotSeq;
    private Iterator<Map.Entry<InternalKey, byte[]>> it;
    private Map.Entry<InternalKey, byte[]> current;

    MemTableCursor(long snapshotSeq) {
      this.snapshotSeq = snapshotSeq;
    }

    @Override
    public boolean isValid() {
      return current != null;
    }

    @Override
    public void seekToFirst() {
      it = map.entrySet().iterator();
      advance();
    }

    @Override
    public void seek(byte[] userKey, long seqNum) {
      it = map.tailMap(InternalKey.seekKey(userKey, seqNum), true).entrySet().iterator();
      advance();
    }

    @Override
    public void next() {
      advance();
    }

    private void advance() {
      while (it.hasNext()) {
        Map.Entry<InternalKey, byte[]> e = it.next();
        if (e.getKey().seqNum() <= snapshotSeq) {
          current = e;
          return;
        }
      }
      current = null;
    }

    @Override
    public byte[] userKey() {
      return current.getKey().userKey();
    }

    @Override
    public long seqNum() {
      return current.getKey().seqNum();
    }

    @Override
    public ValueKind kind() {
      return current.getKey().kind();
    }

    @Override
    public byte[] value() {
      return current.getValue();
    }

    @Override
    public void close() {
      current = null;
    }
  }
}
