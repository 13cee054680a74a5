package org.kvstore;

/**
 * Counters of the store's active expiry since it opened ({@link KVStore#expiryStats()}).
 *
 * @param examined entries the passes looked at
 * @param removed expired entries they removed (through the logged write path)
 * @param passes passes run
 * @param busyNanos time spent in passes, scans and removals included
 *
 * <p>Thread safety: immutable.
 */
public record ExpiryStats(long examined, long removed, long passes, long busyNanos) {}
