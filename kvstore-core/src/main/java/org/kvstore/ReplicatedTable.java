package org.kvstore;

import java.util.List;
import org.kvstore.spi.Mutation;

/**
 * The write side of a <em>replicated</em> table: a table created with the property
 * {@code replicated=true}, whose writes come from a replication log outside the store (a Raft log)
 * rather than from {@link Table}'s write methods. From {@link KVStore#replicatedTable}.
 *
 * <p>The store logs nothing for such a table: the replication log is its write-ahead log. Each batch
 * is applied under the log index the caller gives ({@link #apply}), which becomes the version of the
 * entries it writes and, through the table's persisted state, its {@link #persistedLsn()}. After a
 * restart the caller replays its log above {@code persistedLsn()}; the store replays nothing for the
 * table. {@link Table}'s writes (and the store's active expiry) refuse or skip the table, so that
 * every change has an index in the replication log; reads work as for any table. The log's owner
 * removes expired entries itself, as entries of its log: it finds them with
 * {@link #scanIncludingExpired}, and learns when to look again from {@link #takeEarliestExpiryApplied}.
 *
 * <p>Thread safety: {@link #apply} has one caller at a time, in increasing index order (a Raft state
 * machine's apply thread); the other methods are thread-safe.
 */
public interface ReplicatedTable {

  /** The table handle, for reads. Its write methods throw {@link InvalidArgumentException}. */
  Table table();

  /**
   * Applies {@code mutations} (possibly none) in order under log index {@code lsn}, without logging
   * them. An empty batch only advances {@link #appliedLsn()}: every table of a replication group
   * advances with every entry, so that a checkpoint of any of them covers the whole log prefix.
   * Keys and values are checked as for {@link Table#put}.
   *
   * @throws InvalidArgumentException if {@code lsn} is not above {@link #appliedLsn()} (the caller
   *     skips indexes the table already has, see {@link #persistedLsn()}), or for a bad key or value
   * @throws StorageIOException if the engine fails to apply the batch
   */
  void apply(long lsn, List<Mutation> mutations);

  /** The highest index applied (at open: {@link #persistedLsn()}). */
  long appliedLsn();

  /** The index up to which the table's persisted state is complete (0: nothing persisted). */
  long persistedLsn();

  /**
   * Persists everything applied so far and returns the index now persisted: {@link #appliedLsn()} at
   * the call, when no {@link #apply} runs concurrently.
   */
  long checkpoint();

  /**
   * A cursor over {@code [fromInclusive, toExclusive)} (a {@code null} bound is an open end) that
   * also shows expired entries, each with its {@link Cursor#expiresAt()}: how the log's owner finds
   * the expired entries to remove through its log. Otherwise as {@link Table#scan} without a limit
   * (each key's newest entry, weakly consistent under concurrent applies); close it.
   *
   * @throws StoreClosedException if the table or its store is closed
   */
  Cursor scanIncludingExpired(byte[] fromInclusive, byte[] toExclusive);

  /**
   * The earliest expiry among the entries applied since the previous call, or since open
   * ({@link Long#MAX_VALUE}: none), and starts over from none. An expiry walking the table may rest
   * until then: nothing applied since its last full walk expires sooner.
   */
  long takeEarliestExpiryApplied();
}
