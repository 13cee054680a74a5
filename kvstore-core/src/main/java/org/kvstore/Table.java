package org.kvstore;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/**
 * A handle to one table, from {@link KVStore#table(String, String)}: the same data operations as the
 * store, without the name lookups on every call. The handle stays valid until the table is dropped
 * or the store is closed; then its operations throw {@link NoSuchTableException} or
 * {@link StoreClosedException}.
 *
 * <p>Keys are 1 to {@link StoreOptions#maxKeyBytes()} bytes, ordered by unsigned bytes; values are
 * 0 to {@link StoreOptions#maxValueBytes()} bytes. Writes return once they are as durable as the
 * table's {@link Durability} says.
 *
 * <p>Thread safety: thread-safe.
 */
public interface Table {

  String database();

  String name();

  /** Puts {@code value} under {@code key}, replacing any previous value. */
  void put(byte[] key, byte[] value);

  /** The value under {@code key}, or {@code null} when absent. The caller owns the returned array. */
  byte[] get(byte[] key);

  /**
   * The value under {@code key}, or {@code null} when absent, as {@link #get(byte[])}, but possibly
   * the store's own array rather than a copy: the caller must not modify it (the store, its caches
   * and other readers would see the change). For callers that only read the value or copy it out,
   * such as a server writing it into a reply: it saves allocating and copying the value per read.
   */
  default byte[] getReadOnly(byte[] key) {
    return get(key);
  }

  /**
   * Reads several keys in one call: {@code values[i]} becomes {@link #getReadOnly}{@code (keys[i])}
   * (the store's own array or {@code null}; the caller must not modify it). Not a snapshot: each
   * value is its key's value at some moment of the call, as with separate reads. An engine may look
   * the keys up together, so that the cache misses of one key's lookup overlap with those of the
   * next (a pipeline of {@code GET}s reads its keys this way).
   *
   * @throws InvalidArgumentException when the arrays' lengths differ
   */
  default void multiGetReadOnly(byte[][] keys, byte[][] values) {
    if (keys.length != values.length) {
      throw new InvalidArgumentException("values",
          "must have one slot per key: " + keys.length + " keys but " + values.length + " slots");
    }
    for (int i = 0; i < keys.length; i++) {
      values[i] = getReadOnly(keys[i]);
    }
  }

  /** Removes {@code key}; returns whether it was present. */
  boolean remove(byte[] key);

  /**
   * The entry under {@code key} with its version and expiry, or {@code null} when absent or
   * expired. The caller owns the value array.
   */
  Entry getEntry(byte[] key);

  /**
   * Puts {@code value} under {@code key} as {@code options} say: with an expiry, keeping the current
   * one, only if absent, present or at a given version. Returns whether it was written, the key's
   * version after the call, and the entry it replaced when it read it.
   */
  WriteResult put(byte[] key, byte[] value, PutOptions options);

  /**
   * Removes {@code key} if {@code precondition} holds. {@link WriteResult#applied()} is false when
   * the key was absent or the precondition failed; {@link WriteResult#previous()} is the entry
   * found (removed or kept).
   */
  WriteResult remove(byte[] key, Precondition precondition);

  /**
   * Sets the expiry of an existing key to {@code epochMillis}, keeping its value, as a new version;
   * a time not after the store's current time removes the key (as Redis' {@code EXPIREAT} with a
   * past time does). Returns false when the key is absent.
   *
   * @throws InvalidArgumentException if {@code epochMillis} is under 1
   */
  boolean expireAt(byte[] key, long epochMillis);

  /** Drops the expiry of {@code key}, as a new version. Returns false when absent or without expiry. */
  boolean persist(byte[] key);

  /**
   * {@link #update} with the entries (version, expiry) of the keys, {@code null} for absent or
   * expired ones. The returned batch may carry {@link PutOptions} (an expiry, keep-expiry).
   */
  void updateEntries(List<byte[]> keys, Function<Entry[], WriteBatch> update);

  /** Applies {@code batch} atomically. */
  void write(WriteBatch batch);

  /**
   * Atomic read-modify-write: reads the current values of {@code keys} (null for absent), passes
   * them, in order, to {@code update}, and writes the batch it returns ({@code null}: no change),
   * while no other writer can change those keys. The batch may only touch {@code keys}.
   *
   * <p>This is how INCR, APPEND, SETNX, MSETNX, GETSET and RENAME are made atomic.
   *
   * @throws InvalidArgumentException if the batch touches a key not in {@code keys}
   */
  void update(List<byte[]> keys, Function<byte[][], WriteBatch> update);

  /**
   * A cursor over the keys in {@code [fromInclusive, toExclusive)}, at most {@code limit} entries
   * ({@code limit <= 0}: no limit); a {@code null} bound is an open end. Close it.
   */
  Cursor scan(byte[] fromInclusive, byte[] toExclusive, int limit);

  /** The table's description and statistics. */
  TableInfo info();

  /** Makes everything written so far part of the table's persisted state (a table checkpoint). */
  void flush();

  default void put(String key, byte[] value) {
    put(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value);
  }

  default byte[] get(String key) {
    return get(key == null ? null : key.getBytes(StandardCharsets.UTF_8));
  }

  default boolean remove(String key) {
    return remove(key == null ? null : key.getBytes(StandardCharsets.UTF_8));
  }
}
