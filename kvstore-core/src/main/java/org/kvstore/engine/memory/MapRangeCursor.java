package org.kvstore.engine.memory;

import java.time.Clock;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import org.kvstore.Cursor;
import org.kvstore.Entry;

/**
 * A {@link Cursor} over the range {@code [fromInclusive, toExclusive)} of a sorted map of keys to
 * {@link Entry entries} (ordered by unsigned bytes); a {@code null} bound is an open end. Entries
 * expired at {@code clock}'s time when the cursor reaches them are skipped (all are shown when the
 * clock is null). Over a concurrent map it
 * is weakly consistent: each key at most once, in order. Keys and values are copied out.
 *
 * <p>Thread safety: confined to one thread.
 */
public final class MapRangeCursor implements Cursor {
  private final Iterator<Map.Entry<byte[], Entry>> it;
  private final Clock clock;
  private byte[] key;
  private Entry current;

  private MapRangeCursor(Iterator<Map.Entry<byte[], Entry>> it, Clock clock) {
    this.it = it;
    this.clock = clock;
  }

  /** A cursor over the range of {@code map}, which must be ordered by {@link Arrays#compareUnsigned}. */
  public static MapRangeCursor over(
      NavigableMap<byte[], Entry> map, byte[] fromInclusive, byte[] toExclusive, Clock clock) {
    Map<byte[], Entry> range;
    if (fromInclusive == null && toExclusive == null) {
      range = map;
    } else if (fromInclusive == null) {
      range = map.headMap(toExclusive, false);
    } else if (toExclusive == null) {
      range = map.tailMap(fromInclusive, true);
    } else if (Arrays.compareUnsigned(fromInclusive, toExclusive) >= 0) {
      range = Collections.emptyMap();
    } else {
      range = map.subMap(fromInclusive, true, toExclusive, false);
    }
    return new MapRangeCursor(range.entrySet().iterator(), clock);
  }

  @Override
  public boolean next() {
    while (it.hasNext()) {
      Map.Entry<byte[], Entry> e = it.next();
      Entry entry = e.getValue();
      if (clock == null || !Entry.isExpired(entry.expiresAt(), clock.millis())) {
        key = e.getKey();
        current = entry;
        return true;
      }
    }
    key = null;
    current = null;
    return false;
  }

  @Override
  public byte[] key() {
    return key.clone();
  }

  @Override
  public byte[] value() {
    return current.value().clone();
  }

  @Override
  public long version() {
    return current.version();
  }

  @Override
  public long expiresAt() {
    return current.expiresAt();
  }

  @Override
  public void close() {}
}
