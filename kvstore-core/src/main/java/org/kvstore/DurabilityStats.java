package org.kvstore;

/**
 * What the store's durability machinery has done since it opened ({@link KVStore#durabilityStats()}):
 * the write-ahead log's appends and fsyncs and the checkpoints. The counters only grow while the store
 * is open and start from zero when it opens.
 *
 * @param walSyncNanos the duration of each fsync of a log segment, in nanoseconds: group-commit rounds
 *     of writes that wait for fsync, the periodic sync, segment rolls and open and close; its
 *     {@link Histogram#count() count} is the number of fsyncs
 * @param walAppendedBytes bytes of records appended to the log (framing included, segment headers
 *     not)
 * @param walBatchRecords the records each {@code write()} of the log carried (the group-commit batch
 *     size); its {@link Histogram#sum() sum} is the number of records appended
 * @param checkpointNanos the duration of each completed checkpoint (every table persisted, obsolete
 *     log segments deleted), in nanoseconds; its {@link Histogram#count() count} is the number of
 *     checkpoints, background, on demand and at close
 * @param checkpointFailures checkpoints that failed (a table could not persist, a segment could not
 *     be deleted)
 *
 * <p>Thread safety: immutable.
 */
public record DurabilityStats(
    Histogram walSyncNanos, long walAppendedBytes, Histogram walBatchRecords, Histogram checkpointNanos,
    long checkpointFailures) {

  /** The number of fsyncs of the log. */
  public long walSyncs() {
    return walSyncNanos.count();
  }

  /** The number of completed checkpoints. */
  public long checkpoints() {
    return checkpointNanos.count();
  }
}
