package org.kvstore.engine.memory;

import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.spi.EngineStats;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.Mutation;

/**
 * A table of the memory engine: a {@link ConcurrentSkipListMap} from keys to {@link Entry entries}
 * (value, version, expiry), ordered by unsigned bytes. An expired entry stays in the map, invisible
 * to reads, until the store's active expiry removes it or a write replaces it.
 *
 * <p>Thread safety: thread-safe and lock-free; cursors are weakly consistent (each key at most once).
 * The counters are updated after the map, so they may lag a concurrent write for a moment.
 */
final class MemoryTable implements EngineTable {
  private final ConcurrentSkipListMap<byte[], Entry> map =
      new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
  private final AtomicLong count = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final Clock clock;

  MemoryTable(Clock clock) {
    this.clock = clock;
  }

  /** The live entry under {@code key}, or null when absent or expired. */
  private Entry live(byte[] key) {
    Entry e = map.get(key);
    return e == null || Entry.isExpired(e.expiresAt(), clock.millis()) ? null : e;
  }

  @Override
  public byte[] get(byte[] key) {
    Entry e = live(key);
    return e == null ? null : e.value().clone();
  }

  /** The map's own array: values are put as copies and never changed in place. */
  @Override
  public byte[] getReadOnly(byte[] key) {
    Entry e = live(key);
    return e == null ? null : e.value();
  }

  @Override
  public Entry getEntry(byte[] key) {
    Entry e = live(key);
    return e == null ? null : new Entry(e.value().clone(), e.version(), e.expiresAt());
  }

  @Override
  public void put(byte[] key, byte[] value, long expiresAt, long lsn) {
    Entry previous = map.put(key, new Entry(value, lsn, expiresAt));
    if (previous == null) {
      count.incrementAndGet();
      bytes.addAndGet(key.length + value.length);
    } else {
      bytes.addAndGet(value.length - previous.value().length);
    }
  }

  @Override
  public void remove(byte[] key, long lsn) {
    Entry previous = map.remove(key);
    if (previous != null) {
      count.decrementAndGet();
      bytes.addAndGet(-(key.length + previous.value().length));
    }
  }

  @Override
  public void apply(List<Mutation> batch, long lsn) {
    for (Mutation m : batch) {
      if (m.isRemove()) {
        remove(m.key(), lsn);
      } else {
        put(m.key(), m.value(), m.expiresAt(), lsn);
      }
    }
  }

  @Override
  public Cursor newCursor(byte[] fromInclusive, byte[] toExclusive) {
    return MapRangeCursor.over(map, fromInclusive, toExclusive, clock);
  }

  @Override
  public Cursor newCursorIncludingExpired(byte[] fromInclusive, byte[] toExclusive) {
    return MapRangeCursor.over(map, fromInclusive, toExclusive, null);
  }

  @Override
  public long flush() {
    return 0;
  }

  @Override
  public long persistedLsn() {
    return 0;
  }

  @Override
  public EngineStats stats() {
    return new EngineStats(count.get(), 0, Map.of("memory.bytes", bytes.get()));
  }

  @Override
  public void close() {
    map.clear();
  }
}
