package org.kvstore.server.command;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.Table;

/**
 * The keys a connection {@code WATCH}es, each with a fingerprint of its value when it was watched:
 * {@code EXEC} compares the fingerprints with the values it reads under the transaction's key locks,
 * and any difference aborts the transaction.
 *
 * <p>A fingerprint is the SHA-256 of the value (absent: none), so a watch holds 32 bytes per key
 * whatever the value's size. Unlike Redis, which aborts on any write of a watched key, this aborts
 * when the value differs: a key written back to the value it had when it was watched does not abort
 * (the check-and-set guarantee that WATCH is used for is the same).
 *
 * <p>Thread safety: confined to its connection, like the transaction it guards.
 */
public final class WatchedKeys {
  /** One watched key of a table (named, so a re-resolved handle of the same table matches). */
  record Watch(Table table, byte[] key, byte[] fingerprint) {
    boolean on(Table t) {
      return table.database().equals(t.database()) && table.name().equals(t.name());
    }
  }

  private final List<Watch> watches = new ArrayList<>();

  /** Watches {@code key} of {@code table}, whose value is now {@code value} (null: absent). */
  public void watch(Table table, byte[] key, byte[] value) {
    watches.add(new Watch(table, key.clone(), fingerprint(value)));
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
   * Whether every watched key of a table other than {@code t} still has its value (read now, not
   * under a lock: a transaction runs on one table, and only that table's keys are locked for it).
   */
  public boolean unchangedOutside(Table t) {
    for (Watch w : watches) {
      if (!w.on(t) && !Arrays.equals(w.fingerprint(), fingerprint(w.table().getReadOnly(w.key())))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether every watched key of {@code t} still has its value: {@code values[i]} is the current
   * value of {@code keys.get(i)}, read under the transaction's locks.
   */
  public boolean unchangedOn(Table t, List<byte[]> keys, byte[][] values) {
    Map<ByteBuffer, Integer> index = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      index.putIfAbsent(ByteBuffer.wrap(keys.get(i)), i);
    }
    for (Watch w : watches) {
      Integer i = w.on(t) ? index.get(ByteBuffer.wrap(w.key())) : null;
      if (i != null && !Arrays.equals(w.fingerprint(), fingerprint(values[i]))) {
        return false;
      }
    }
    return true;
  }

  static byte[] fingerprint(byte[] value) {
    if (value == null) {
      return null;
    }
    try {
      return MessageDigest.getInstance("SHA-256").digest(value);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
