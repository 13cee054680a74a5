package org.kvstore.server.command;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.Entry;
import org.kvstore.Table;

/**
 * The keys a connection {@code WATCH}es, each with the {@link Entry#version() version} of its entry
 * when it was watched (or a mark that it was absent): {@code EXEC} compares them with the entries it
 * reads under the transaction's key locks, and any difference aborts the transaction.
 *
 * <p>Every write of a key makes a new version, so, as in Redis, any write of a watched key aborts:
 * also one that writes the value back (changed and changed back), an expiry set or removed, and a
 * key that expired meanwhile (it is absent now). A key watched while absent and still absent does
 * not abort, whatever happened in between (created and deleted again, as in Redis, where the key
 * is touched then; here nothing of it remains to compare).
 *
 * <p>Thread safety: confined to its connection, like the transaction it guards.
 */
public final class WatchedKeys {
  /** The version noted for a key that was absent (or expired) when watched; versions are >= 0. */
  static final long ABSENT = -1;

  /** One watched key of a table (named, so a re-resolved handle of the same table matches). */
  record Watch(Table table, byte[] key, long version) {
    boolean on(Table t) {
      return table.database().equals(t.database()) && table.name().equals(t.name());
    }
  }

  private final List<Watch> watches = new ArrayList<>();

  /** Watches {@code key} of {@code table}, whose entry is now {@code entry} (null: absent). */
  public void watch(Table table, byte[] key, Entry entry) {
    watches.add(new Watch(table, key.clone(), versionOf(entry)));
  }

  public int size() {
    return watches.size();
  }

  /** The watched keys of table {@code t} (possibly with repeats). */
  public List<byte[]> keysOn(Table t) {
    List<byte[]> keys = new ArrayList<>();
    for (Watch w : watches) {
      if (w.on(t)) {
        keys.add(w.key());
      }
    }
    return keys;
  }

  /**
   * Whether every watched key of a table other than {@code t} still has its version (read now, not
   * under a lock: a transaction runs on one table, and only that table's keys are locked for it).
   */
  public boolean unchangedOutside(Table t) {
    for (Watch w : watches) {
      if (!w.on(t) && w.version() != versionOf(w.table().getEntry(w.key()))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether every watched key of {@code t} still has its version: {@code entries[i]} is the current
   * entry of {@code keys.get(i)}, read under the transaction's locks.
   */
  public boolean unchangedOn(Table t, List<byte[]> keys, Entry[] entries) {
    Map<ByteBuffer, Integer> index = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      index.putIfAbsent(ByteBuffer.wrap(keys.get(i)), i);
    }
    for (Watch w : watches) {
      Integer i = w.on(t) ? index.get(ByteBuffer.wrap(w.key())) : null;
      if (i != null && w.version() != versionOf(entries[i])) {
        return false;
      }
    }
    return true;
  }

  private static long versionOf(Entry e) {
    return e == null ? ABSENT : e.version();
  }
}
