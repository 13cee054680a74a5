package org.kvstore.lsm.sstable;

import org.kvstore.Entry;

/**
 * What an SSTable holds that may be reclaimed: its tombstones, and its entries with an expiry time
 * with the earliest and latest of those times. The manifest records them with each file
 * (docs/format/manifest.md), so that compaction picking reads no file
 * (docs/decisions/0026-lsm-expiry.md).
 *
 * <p>Thread safety: immutable.
 *
 * @param tombstones the file's delete entries
 * @param expiring the file's put entries with an expiry time
 * @param minExpiresAt the earliest expiry time of those ({@link Entry#NO_EXPIRY} when none)
 * @param maxExpiresAt the latest expiry time of those ({@link Entry#NO_EXPIRY} when none)
 */
public record FileStats(long tombstones, long expiring, long minExpiresAt, long maxExpiresAt) {
  /**
   * Nothing known to be reclaimable: a file without tombstones or expiring entries, or a file of a
   * manifest written before these counts were recorded. (A method, not a constant: Lincheck cannot
   * read static fields of record classes, and versions hold these.)
   */
  public static FileStats none() {
    return new FileStats(0, 0, Entry.NO_EXPIRY, Entry.NO_EXPIRY);
  }

  /**
   * An estimate of the entries of a file of {@code entries} entries that are reclaimable at
   * {@code nowMillis}: its tombstones, plus its expiring entries in the share of the span
   * {@code [minExpiresAt, maxExpiresAt]} that has passed (expiry times taken as evenly spread).
   */
  public double reclaimableAt(long nowMillis) {
    double expired = 0;
    if (expiring > 0 && Entry.isExpired(minExpiresAt, nowMillis)) {
      if (Entry.isExpired(maxExpiresAt, nowMillis) || maxExpiresAt <= minExpiresAt) {
        expired = expiring;
      } else {
        expired = expiring * (double) (nowMillis - minExpiresAt) / (maxExpiresAt - minExpiresAt);
      }
    }
    return tombstones + expired;
  }

  /** Accumulates the stats of entries added in any order. Thread safety: confined. */
  public static final class Builder {
    private long tombstones;
    private long expiring;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    public void addTombstone() {
      tombstones++;
    }

    public void addPut(long expiresAt) {
      if (expiresAt != Entry.NO_EXPIRY) {
        expiring++;
        min = Math.min(min, expiresAt);
        max = Math.max(max, expiresAt);
      }
    }

    public FileStats build() {
      return expiring == 0
          ? new FileStats(tombstones, 0, Entry.NO_EXPIRY, Entry.NO_EXPIRY)
          : new FileStats(tombstones, expiring, min, max);
    }
  }
}
