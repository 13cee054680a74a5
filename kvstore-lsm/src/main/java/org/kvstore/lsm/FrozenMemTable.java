package org.kvstore.lsm;

import java.util.concurrent.CompletableFuture;
import org.kvstore.lsm.memtable.MemTable;

/**
 * A memtable made immutable at a switch, waiting for (or in) its flush.
 *
 * @param mem the memtable; no writer adds to it any more
 * @param appliedLsn the store's apply watermark read under the write fence at the switch: every
 *     mutation at or below it is in this memtable or older state, so once this memtable's SSTable
 *     is in the manifest, it is the table's persisted LSN
 * @param maxSeqNum the last sequence number handed out before the switch
 * @param flushed completes when the flush is durable (exceptionally when it failed)
 *     <p>Thread safety: immutable; the future is thread-safe.
 */
record FrozenMemTable(MemTable mem, long appliedLsn, long maxSeqNum, CompletableFuture<Void> flushed) {}
