package org.kvstore.spi;

import java.io.IOException;
import java.util.List;
import org.kvstore.Cursor;
import org.kvstore.Entry;

/**
 * One open table of an engine: an ordered map from binary keys to binary values, in unsigned
 * lexicographic key order.
 *
 * <h2>Write protocol</h2>
 *
 * The core logs every mutation of a durable table in the write-ahead log first, under a log sequence
 * number (LSN), and only then applies it here. Writes to the same key never race: the core holds
 * that key's lock across log and apply, so mutations of one key arrive in LSN order. Mutations of
 * different keys may arrive concurrently and out of LSN order.
 *
 * <h2>Persistence protocol</h2>
 *
 * {@link #flush()} (and any background flush of the engine's own) persists a state that contains
 * every mutation at or below {@link EngineContext#appliedLsn()} read when the state was frozen, and
 * records that LSN; {@link #persistedLsn()} returns the latest one made durable. On open, the core
 * replays the log records of this table above {@code persistedLsn()}: replaying a mutation that is
 * already in the persisted state must be harmless (puts and removes are idempotent). Engines that
 * are not durable return 0 from {@code persistedLsn()} and are never replayed.
 *
 * <h2>Versions and expiry</h2>
 *
 * Every entry carries a version and an expiry time. The version of an entry is the LSN of the
 * mutation that wrote it (the {@code lsn} argument of {@link #put}, {@link #apply}); engines store
 * it with the entry and keep it through flushes and compactions. Entries read from a format that
 * predates versions report version 0. The expiry time ({@link Mutation#expiresAt()}) is absolute
 * milliseconds since the epoch, {@link Entry#NO_EXPIRY} for never.
 *
 * <p>An expired entry ({@link Entry#isExpired} at {@link EngineContext#clock()}'s current millis) is
 * absent for every read of the engine: {@link #get}, {@link #getReadOnly}, {@link #getEntry},
 * {@link #multiGetReadOnly} and cursors skip it. It still shadows older entries of its key until it
 * is removed or compacted away: an engine that drops an expired entry must not bring back an older
 * one (an LSM compaction turns it into a tombstone unless nothing older can lie below it). Engines
 * reclaim the space of expired entries when they rewrite them anyway (compaction, a leaf write);
 * the store's active expiry removes the rest through the write path.
 *
 * <p>Errors: I/O errors are {@link IOException} (the core names the table and translates them);
 * damaged data is {@link org.kvstore.CorruptionException} naming file and offset, never a wrong value.
 *
 * <p>Thread safety: implementations are thread-safe; readers must not block readers.
 */
public interface EngineTable extends AutoCloseable {

  /** The value under {@code key}, or {@code null} (absent or expired). The caller owns the array. */
  byte[] get(byte[] key) throws IOException;

  /**
   * The entry under {@code key} with its version and expiry, or {@code null} when absent or
   * expired. The caller owns the value array.
   */
  Entry getEntry(byte[] key) throws IOException;

  /**
   * The value under {@code key}, or {@code null}; may be the engine's own array, which the caller
   * must not modify ({@link org.kvstore.Table#getReadOnly}). Engines that keep values in arrays they
   * never change hand those out instead of a copy.
   */
  default byte[] getReadOnly(byte[] key) throws IOException {
    return get(key);
  }

  /**
   * Sets {@code values[i]} to {@link #getReadOnly}{@code (keys[i])} for every {@code i} (the arrays
   * have the same length; {@link org.kvstore.Table#multiGetReadOnly}). Engines whose point reads are
   * bound by cache misses override it to look the keys up together.
   */
  default void multiGetReadOnly(byte[][] keys, byte[][] values) throws IOException {
    for (int i = 0; i < keys.length; i++) {
      values[i] = getReadOnly(keys[i]);
    }
  }

  /**
   * Puts {@code value} under {@code key}, expiring at {@code expiresAt} ({@link Entry#NO_EXPIRY}:
   * never), as version {@code lsn}: the write's log sequence number (for a table without a log, a
   * number the store draws from the same sequence without logging).
   */
  void put(byte[] key, byte[] value, long expiresAt, long lsn) throws IOException;

  /** Removes {@code key} (a no-op when absent), logged at {@code lsn}. */
  void remove(byte[] key, long lsn) throws IOException;

  /**
   * Applies the mutations in order, logged together at {@code lsn}. Engines with snapshot reads make
   * the batch visible atomically; the core guarantees all-or-nothing across crashes through the log.
   */
  void apply(List<Mutation> batch, long lsn) throws IOException;

  /**
   * A cursor over {@code [fromInclusive, toExclusive)}; a {@code null} bound is an open end. The
   * cursor must tolerate concurrent writes (no exception, each key at most once), skips expired
   * entries, and reports each entry's {@link Cursor#version()} and {@link Cursor#expiresAt()}.
   */
  Cursor newCursor(byte[] fromInclusive, byte[] toExclusive) throws IOException;

  /**
   * {@link #newCursor}, but expired entries are included, with their expiry: the store's active
   * expiry finds the entries to remove this way. Entries are still each key's newest.
   */
  Cursor newCursorIncludingExpired(byte[] fromInclusive, byte[] toExclusive) throws IOException;

  /**
   * Persists every mutation applied before the call (see the persistence protocol) and returns the
   * LSN now recorded as persisted. A no-op returning 0 for engines that are not durable.
   */
  long flush() throws IOException;

  /**
   * Retries the background work that failed for lack of disk space (reported through
   * {@link EngineContext#spaceListener()}, or thrown by {@link #flush()}), and returns once it
   * succeeded and the table takes writes as before. The default is {@link #flush()}.
   *
   * @throws IOException when it fails again (the store retries later, with back-off)
   */
  default void retryAfterNoSpace() throws IOException {
    flush();
  }

  /** The LSN up to which this table's persisted state is complete (0 when nothing was persisted). */
  long persistedLsn();

  EngineStats stats() throws IOException;

  /**
   * Writes into {@code targetDirectory} (existing and empty) a copy of this table's persisted state
   * that the engine opens as a table whose {@link #persistedLsn()} is that of the copied state. It
   * must be consistent while writes and background work go on; immutable files should be hard-linked
   * ({@link org.kvstore.io.FileSystem#createLink}) rather than copied. The store calls it right after
   * {@link #flush()}, and copies the log above the copied state's LSN itself.
   *
   * @throws IOException if the copy fails, or the engine cannot make one
   */
  default void backup(java.nio.file.Path targetDirectory) throws IOException {
    throw new IOException("this engine does not support online backup");
  }

  /**
   * Closes the table, releasing files and threads. Does not flush: the core calls {@link #flush()}
   * first when it wants a clean close. Idempotent.
   */
  @Override
  void close() throws IOException;
}
