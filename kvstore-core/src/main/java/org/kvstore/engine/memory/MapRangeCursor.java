package org.kvstore.engine.memory;

import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import org.kvstore.Cursor;

/**
 * A {@link Cursor} over the range {@code [fromInclusive, toExclusive)} of a sorted map of byte
 * arrays (ordered by unsigned bytes); a {@code null} bound is an open end. Over a concurrent map it
 * is weakly consistent: each key at most once, in order. Keys and values are copied out.
 *
 * <p>Thread safety: confined to one thread.
 */
public final class MapRangeCursor implements Cursor {
  private final Iterator<Map.Entry<byte[], byte[]>> it;
  private Map.Entry<byte[], byte[]> current;

  private MapRangeCursor(Iterator<Map.Entry<byte[], byte[]>> it) {
    this.it = it;
  }

  /** A cursor over the range of {@code map}, which must be ordered by {@link Arrays#compareUnsigned}. */
  public static MapRangeCursor over(NavigableMap<byte[], byte[]> map, byte[] fromInclusive, byte[] toExclusive) {
    Map<byte[], byte[]> range;
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
    return new MapRangeCursor(range.entrySet().iterator());
  }

  @Override
  public boolean next() {
    current = it.hasNext() ? it.next() : null;
    return current != null;
  }

  @Override
  public byte[] key() {
    return current.getKey().clone();
  }

  @Override
  public byte[] value() {
    return current.getValue().clone();
  }

  @Override
  public void close() {}
}
