package org.kvstore;

/**
 * A forward cursor over the entries of a range, in unsigned-byte key order. It starts before the
 * first entry: call {@link #next()} to move onto it.
 *
 * <pre>{@code
 * try (Cursor c = store.scan("db", "t", from, to, 100)) {
 *   while (c.next()) {
 *     use(c.key(), c.value());
 *   }
 * }
 * }</pre>
 *
 * <p>Consistency: every key in the range is seen at most once, in order. A scan of an engine with
 * snapshots (LSM) sees one point in time; other engines (memory, B+tree) give a weakly consistent
 * view: each key appears with a value it held at some moment during the scan.
 *
 * <p>A cursor pins engine resources (a version of the files, buffer pages): always close it.
 *
 * <p>Thread safety: confined to one thread; many cursors may run concurrently.
 */
public interface Cursor extends AutoCloseable {

  /**
   * Moves to the next entry.
   *
   * @return false when the range (or the limit) is exhausted
   * @throws CorruptionException if stored data failed a checksum
   * @throws StoreClosedException if the cursor or its store is closed
   */
  boolean next();

  /** The current key, a fresh array the caller owns. REQUIRES: the last {@link #next()} returned true. */
  byte[] key();

  /** The current value, a fresh array the caller owns. REQUIRES: the last {@link #next()} returned true. */
  byte[] value();

  /** The current entry's version ({@link Entry#version()}). REQUIRES: positioned on an entry. */
  long version();

  /**
   * The current entry's expiry, milliseconds since the epoch, or {@link Entry#NO_EXPIRY}.
   * REQUIRES: positioned on an entry.
   */
  long expiresAt();

  /** Releases what the cursor pins. Idempotent. */
  @Override
  void close();
}
