package org.kvstore.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.kvstore.CorruptionException;
import org.kvstore.RecoveryMode;
import org.kvstore.io.FileSystem;
import org.kvstore.wal.WalRecovery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the open tables of a store up to the end of its log: replays every record of a durable
 * table above that table's persisted LSN, in LSN order, then cuts a torn tail. Records of tables the
 * catalog no longer has (dropped) are skipped. Each record is applied under its own LSN, which is
 * therefore the version of the entries it writes, as it was before the restart; its puts keep the
 * expiry the record carries (docs/format/wal.md), also one that passed while the store was closed.
 *
 * <p>Thread safety: used once, by the opening thread, before the store is shared.
 */
public final class StoreRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(StoreRecovery.class);

  private StoreRecovery() {}

  /**
   * What the log held.
   *
   * @param log recovery's view of the log
   * @param endLsn the LSN of the log's end: the next record gets {@code endLsn + 1}
   * @param replayed records applied to tables
   */
  public record Outcome(WalRecovery.Result log, long endLsn, long replayed) {}

  public static Outcome recover(
      FileSystem fs, Path walDir, RecoveryMode mode, StoreCatalog catalog, WritePipeline pipeline) throws IOException {
    long startNanos = System.nanoTime();
    Map<Long, StoreTable> byId = new HashMap<>();
    long maxPersisted = 0;
    StoreTable aheadTable = null;
    for (StoreTable t : catalog.tables()) {
      if (t.durable() && !t.replicated()) { // a replicated table's log is outside the store
        byId.put(t.id(), t);
        if (t.engine().persistedLsn() > maxPersisted) {
          maxPersisted = t.engine().persistedLsn();
          aheadTable = t;
        }
      }
    }
    pipeline.advanceTo(0);
    long[] replayed = {0};
    WalRecovery.Result result =
        WalRecovery.replay(fs, walDir, mode, record -> {
          StoreTable t = byId.get(record.tableId());
          if (t != null && record.lsn() > t.engine().persistedLsn()) {
            WritePipeline.applyTo(t, record.mutations(), record.lsn());
            t.loggedUpTo(record.lsn());
            replayed[0]++;
          }
          pipeline.advanceTo(record.lsn());
        });
    long end = result.lastLsn();
    if (!result.segments().isEmpty()) {
      end = Math.max(end, result.segments().lastEntry().getValue() - 1);
    }
    if (result.tailCut() != null && maxPersisted > end) {
      String msg = "table " + aheadTable.qualifiedName() + " has persisted state up to LSN " + maxPersisted
          + " but the log ends at LSN " + end + " after damage at offset " + result.tailCut().offset()
          + ": " + result.tailCut().reason();
      if (mode != RecoveryMode.SALVAGE) {
        throw new CorruptionException(result.tailCut().segment(), result.tailCut().offset(),
            msg + " (open with recovery mode salvage to accept it)");
      }
      LOG.warn("{} (salvage: accepted)", msg);
    }
    WalRecovery.cutTail(fs, result);
    if (result.skipped() > 0) {
      LOG.warn("salvage recovery skipped {} damaged log records: {}", result.skipped(), result.problems());
    }
    end = Math.max(end, maxPersisted);
    pipeline.advanceTo(end);
    if (replayed[0] > 0) {
      LOG.info("replayed {} of the log's {} records into tables in {} ms (log end LSN {})", replayed[0],
          result.records(), (System.nanoTime() - startNanos) / 1_000_000, end);
    }
    return new Outcome(result, end, replayed[0]);
  }
}
