package org.kvstore.lsm.key;

import org.kvstore.Entry;

/**
 * What a point lookup found in one source: the newest entry of the key visible there.
 *
 * <p>Thread safety: immutable by convention (the value array is never modified).
 *
 * @param value the value of a {@link ValueKind#PUT}; empty for a delete
 * @param version the entry's version: the LSN of the write that made it (0 when read from an
 *     SSTable of format version 1)
 * @param expiresAt when a put expires ({@link Entry#NO_EXPIRY}: never)
 */
public record Lookup(long seqNum, ValueKind kind, byte[] value, long version, long expiresAt) {
  /**
   * A lookup to make again: the source changed under it (a memtable recycled while its value was
   * copied out). Compared by identity.
   */
  public static final Lookup RETRY = new Lookup(0, ValueKind.DELETE, new byte[0], 0, Entry.NO_EXPIRY);

  /** Whether this is a put that is not expired at {@code nowMillis}. */
  public boolean isLiveAt(long nowMillis) {
    return kind == ValueKind.PUT && !Entry.isExpired(expiresAt, nowMillis);
  }
}
