package org.kvstore.lsm.memtable;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A concurrent hash set of keys that only grows: lookups are lock-free, inserts take this object's
 * monitor. It is the memtable's point-read index, where a lookup is the hot path of every
 * {@code GET} and every overwrite, and keys are never removed (a memtable only grows until it is
 * flushed and dropped whole).
 *
 * <pre>
 *   table (open addressing, linear probing, at most half full)
 *   [ . | k7 | . | k2 | k9 | . | . | k4 ]     a slot holds the key object itself
 *          ▲ hash(k) & mask, then the next slots until the key or an empty slot
 * </pre>
 *
 * <p>Why not {@link java.util.concurrent.ConcurrentHashMap}: its table holds nodes that point to the
 * key, so a probe loads the node and then the key, two dependent cache misses where this table has
 * one; in the memtable the key object is the record itself (its version chain), and at a few
 * hundred thousand keys every one of them is a miss. A table slot here is one reference.
 *
 * <p>Thread safety: {@link #get} reads the current table (a volatile field) and its slots with
 * acquire loads and never locks; {@link #putIfAbsent} holds the monitor, fills a slot with a release
 * store (a reader that sees the reference sees the key's fields), and on growth fills a new table
 * completely before publishing it. A key put before a lookup starts (happens-before) is found: the
 * lookup reads a table at least as new as the one the put wrote to, and a table is never emptied.
 * Keys must not change their {@code hashCode} or {@code equals} once put.
 *
 * @param <K> the key type; a lookup passes a probe equal to the stored key
 */
final class KeyIndex<K> {
  private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Object[].class);
  private static final int MIN_CAPACITY = 64;

  /** The slots; replaced (never changed in place but for filling empty slots) when it grows. */
  private volatile Object[] table;
  /** Keys held. */
  @GuardedBy("this")
  private int size;

  KeyIndex() {
    this.table = new Object[MIN_CAPACITY];
  }

  /** The stored key equal to {@code probe}, or {@code null}. Lock-free. */
  @SuppressWarnings("unchecked")
  K get(Object probe) {
    Object[] t = table;
    return (K) probeFrom(t, spread(probe.hashCode()) & (t.length - 1), probe);
  }

  /**
   * Looks up {@code n} probes at once: {@code found[i]} becomes {@link #get}{@code (probes[i])}.
   * First it loads the home slot of every probe, then compares: the loads of different probes do
   * not depend on each other, so their cache misses overlap (a run of lookups in a table of a few
   * hundred thousand keys costs about one miss's latency for all of them, not one per key).
   * Lock-free.
   */
  void getAll(Object[] probes, int n, Object[] found) {
    Object[] t = table;
    int mask = t.length - 1;
    for (int i = 0; i < n; i++) {
      found[i] = SLOTS.getAcquire(t, spread(probes[i].hashCode()) & mask);
    }
    for (int i = 0; i < n; i++) {
      Object k = found[i];
      if (k != null && !k.equals(probes[i])) {
        found[i] = probeFrom(t, (spread(probes[i].hashCode()) + 1) & mask, probes[i]);
      }
    }
  }

  /** Linear probing in {@code t} from slot {@code i} on: the key equal to {@code probe}, or null. */
  private static Object probeFrom(Object[] t, int i, Object probe) {
    int mask = t.length - 1;
    for (; ; i = (i + 1) & mask) {
      Object k = SLOTS.getAcquire(t, i);
      if (k == null || k.equals(probe)) {
        return k;
      }
    }
  }

  /**
   * Puts {@code key} unless an equal key is held; returns the key held before, or {@code null}
   * when {@code key} went in. Takes the monitor.
   */
  @SuppressWarnings("unchecked")
  synchronized K putIfAbsent(K key) {
    int h = spread(key.hashCode());
    Object[] t = table;
    int mask = t.length - 1;
    int i = h & mask;
    for (Object k; (k = t[i]) != null; i = (i + 1) & mask) {
      if (k.equals(key)) {
        return (K) k;
      }
    }
    if (2 * (size + 1) > t.length) {
      t = grown(t);
      table = t; // published full: a reader sees every key of the old table in the new one
      mask = t.length - 1;
      i = h & mask;
      while (t[i] != null) {
        i = (i + 1) & mask;
      }
    }
    SLOTS.setRelease(t, i, key);
    size++;
    return null;
  }

  /** The number of keys. Takes the monitor. */
  synchronized int size() {
    return size;
  }

  /** The slots of the current table (the bytes it takes are {@code 4 or 8 x} this). */
  int capacity() {
    return table.length;
  }

  /** A table twice the size holding the keys of {@code t}. REQUIRES: the monitor held. */
  private static Object[] grown(Object[] t) {
    Object[] n = new Object[t.length * 2];
    int mask = n.length - 1;
    for (Object k : t) {
      if (k != null) {
        int i = spread(k.hashCode()) & mask;
        while (n[i] != null) {
          i = (i + 1) & mask;
        }
        n[i] = k;
      }
    }
    return n;
  }

  /** Mixes the high bits of a hash code into the low ones that pick the slot. */
  private static int spread(int h) {
    h *= 0x9E3779B9;
    return h ^ (h >>> 16);
  }
}
