package org.kvstore;

/**
 * A key's current entry with its metadata, from {@link Table#getEntry}.
 *
 * @param value the value, an array the caller owns
 * @param version the key's version: the log sequence number of the write that made this entry. It
 *     grows with every write of the key (a put, an expiry change) and is never reused, also across
 *     restarts, flushes, compactions and recovery. 0 for an entry written by a store older than
 *     versions (format version 1), and for no other entry.
 * @param expiresAt when the entry expires, in milliseconds since the epoch; 0 for never. The entry is
 *     absent for every read once the store's clock is past this instant ({@link #isExpired}).
 *
 * <p>Thread safety: immutable by convention (the value array is the caller's).
 */
public record Entry(byte[] value, long version, long expiresAt) {

  /** Expiry time meaning "never". */
  public static final long NO_EXPIRY = 0;

  public boolean hasExpiry() {
    return expiresAt != NO_EXPIRY;
  }

  /**
   * Whether an entry expiring at {@code expiresAt} is expired at {@code nowMillis}: the entry is
   * still there during its last millisecond and gone after it (as in Redis, a key set with
   * {@code PX 100} at time 0 has a {@code PTTL} of 0 at time 100 and is gone at 101).
   */
  public static boolean isExpired(long expiresAt, long nowMillis) {
    return expiresAt != NO_EXPIRY && nowMillis > expiresAt;
  }

  /** Milliseconds left at {@code nowMillis} (at least 0), or -1 for an entry without expiry. */
  public long remainingMillis(long nowMillis) {
    return hasExpiry() ? Math.max(0, expiresAt - nowMillis) : -1;
  }
}
