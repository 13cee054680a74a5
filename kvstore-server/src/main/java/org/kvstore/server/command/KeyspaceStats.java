package org.kvstore.server.command;

import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.Table;

/**
 * The figures of one {@code INFO keyspace} line, {@code db0:keys=N,expires=M,avg_ttl=T}: live keys,
 * live keys with an expiry, and their mean time to live in milliseconds.
 *
 * <p>Exact for a table of at most {@value #EXACT_MAX_KEYS} live keys: one scan of the table (the
 * cursors hide expired entries). A larger table is not scanned whole on every {@code INFO}: the scan
 * stops after {@value #EXACT_MAX_KEYS} + 1 keys, {@code keys} is then the engine's estimate (at
 * least the keys seen), and {@code expires} and {@code avg_ttl} are extrapolated from the keys seen
 * (the first ones in key order). So one INFO costs at most that many entries read per table, as
 * Redis' own figures for {@code expires} are exact and {@code avg_ttl} is a sampled estimate.
 *
 * @param keys live keys
 * @param expires live keys with an expiry
 * @param avgTtlMillis mean remaining time to live of those keys, in milliseconds (0 when none)
 * @param exact whether the figures come from a scan of the whole table
 *
 * <p>Thread safety: immutable.
 */
public record KeyspaceStats(long keys, long expires, long avgTtlMillis, boolean exact) {
  /** Most live keys a table may hold for its figures to be exact (counted by a full scan). */
  public static final int EXACT_MAX_KEYS = 10_000;

  /** The figures of {@code t} at {@code nowMillis} (the store's clock). */
  public static KeyspaceStats of(Table t, long nowMillis) {
    long seen = 0;
    long withExpiry = 0;
    double ttlSum = 0; // a double: remaining times near Long.MAX_VALUE would overflow a long sum
    try (Cursor c = t.scan(null, null, EXACT_MAX_KEYS + 1)) {
      while (c.next()) {
        seen++;
        long expiresAt = c.expiresAt();
        if (expiresAt != Entry.NO_EXPIRY) {
          withExpiry++;
          ttlSum += Math.max(0, expiresAt - nowMillis);
        }
      }
    }
    long avgTtl = withExpiry == 0 ? 0 : (long) (ttlSum / withExpiry);
    if (seen <= EXACT_MAX_KEYS) {
      return new KeyspaceStats(seen, withExpiry, avgTtl, true);
    }
    long keys = Math.max(seen, t.info().entryEstimate());
    long expires = Math.round((double) keys * withExpiry / seen);
    return new KeyspaceStats(keys, expires, avgTtl, false);
  }
}
