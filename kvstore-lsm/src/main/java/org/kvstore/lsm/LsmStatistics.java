package org.kvstore.lsm;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one table, reported by {@link LsmTable#stats()}.
 *
 * <p>Thread safety: thread-safe (each counter is a {@link LongAdder}).
 */
final class LsmStatistics {
  final LongAdder userBytes = new LongAdder();
  final LongAdder bytesFlushed = new LongAdder();
  final LongAdder bytesCompactionRead = new LongAdder();
  final LongAdder bytesCompactionWritten = new LongAdder();
  final LongAdder flushes = new LongAdder();
  final LongAdder compactions = new LongAdder();
  final LongAdder stalls = new LongAdder();
  final LongAdder stallNanos = new LongAdder();
}
