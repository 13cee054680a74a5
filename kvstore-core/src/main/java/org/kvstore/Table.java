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
