package org.kvstore.engine.memory;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.Cursor;
import org.kvstore.spi.EngineStats;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.Mutation;

/**
 * A table of the memory engine: a {@link ConcurrentSkipListMap} ordered by unsigned bytes.
 *
 * <p>Thread safety: thread-safe and lock-free; cursors are weakly consistent (each key at most once).
 */
final class MemoryTable implements EngineTable {
  private final ConcurrentSkipListMap<byte[], byte[]> map =
      new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
  private final AtomicLong count = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  @Override
  public byte[] get(byte[] key) {
    byte[] v = map.get(key);
    return v == null ? null : v.clone();
  }

  /** The map's own array: values are put as copies and never changed in place. */
  @Override
  public byte[] getReadOnly(byte[] key) {
    return map.get(key);
  }

  @Override
  public void put(byte[] key, byte[] value, long lsn) {
    byte[] previous = map.put(key, value);
    if (previous == null) {
      count.incrementAndGet();
      bytes.addAndGet(key.length + value.length);
    } else {
      bytes.addAndGet(value.length - previous.length);
    }
  }

  @Override
  public void remove(byte[] key, long lsn) {
    byte[] previous = map.remove(key);
    if (previous != null) {
      count.decrementAndGet();
      bytes.addAndGet(-(key.length + previous.length));
    }
  }

  @Override
  public void apply(List<Mutation> batch, long lsn) {
    for (Mutation m : batch) {
      if (m.isRemove()) {
        remove(m.key(), lsn);
      } else {
        put(m.key(), m.value(), lsn);
      }
    }
  }

  @Override
  public Cursor newCursor(byte[] fromInclusive, byte[] toExclusive) {
    return MapRangeCursor.over(map, fromInclusive, toExclusive);
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
