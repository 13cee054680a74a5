package org.kvstore.lsm;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionSet;
import org.kvstore.spi.EngineStats;

/**
 * The statistics of one table: its counters, and the report of {@link LsmTable#stats()} made from
 * them and from the table's state.
 *
 * <p>Thread safety: thread-safe (each counter is a {@link LongAdder}; a report reads a pinned view).
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
  final LongAdder compactionsDeferred = new LongAdder();

  /**
   * The table's statistics, of the view {@code s} (pinned by the caller).
   *
   * <p>Survive a reopen, because they are computed from the persisted file set (the manifest
   * records each SSTable's size, entry and tombstone counts): the entry estimate (entries of all
   * SSTables and memtables less their tombstones; shadowed versions and expired entries not yet
   * compacted away still count), the bytes on disk of
   * the SSTables, {@code level.N.files}, {@code level.N.bytes}, {@code space.amplification.x100},
   * {@code persisted.lsn} and {@code last.seq}. (The manifest part of {@code bytesOnDisk} shrinks at
   * a reopen, which rewrites the manifest as one snapshot record.)
   *
   * <p>Counted since this open, reset to 0 by a reopen: {@code bytes.user.written},
   * {@code bytes.flushed}, {@code bytes.compaction.read}, {@code bytes.compaction.written},
   * {@code write.amplification.x100} (from those), {@code flushes}, {@code compactions},
   * {@code write.stalls}, {@code write.stall.millis}, {@code compactions.deferred.no.space} (tries
   * that failed for lack of disk space and wait for a back-off), and the block cache's {@code block.cache.hits},
   * {@code block.cache.misses} and {@code block.cache.hit.rate.permille}, and the row cache's
   * {@code row.cache.hits} and {@code row.cache.misses} (a probe of a file that does not hold the key
   * is a miss too). Gauges of the moment: {@code compaction.deferred} (1 while a compaction waits
   * for disk space), {@code memtable.bytes}, {@code memtable.arena.bytes} (the direct memory the
   * memtables hold for their values, whole chunks), {@code immutable.memtables},
   * {@code block.cache.bytes} (blocks and rows),
   * {@code open.files}, {@code resident.readers}, {@code index.filter.bytes}.
   */
  EngineStats report(
      SuperVersion s, VersionSet versions, BlockCache cache, OpenFiles files, long lastSeq, boolean deferred) {
    Version v = s.version();
    // Live keys, estimated: entries minus tombstones (a tombstone is not a key), never below 0.
    long entries = v.totalEntries() - v.totalTombstones() + s.mem().entryCount() - s.mem().deleteCount();
    long memBytes = s.mem().approximateBytes();
    long arenaBytes = s.mem().arenaBytes();
    for (FrozenMemTable imm : s.imms()) {
      entries += imm.mem().entryCount() - imm.mem().deleteCount();
      memBytes += imm.mem().approximateBytes();
      arenaBytes += imm.mem().arenaBytes();
    }
    entries = Math.max(0, entries);
    Map<String, Long> d = new LinkedHashMap<>();
    long flushed = bytesFlushed.sum();
    long compacted = bytesCompactionWritten.sum();
    d.put("write.amplification.x100", flushed == 0 ? 100 : (flushed + compacted) * 100 / flushed);
    long bottom = 0;
    for (int level = v.levelCount() - 1; level >= 0; level--) {
      if (!v.files(level).isEmpty()) {
        bottom = v.levelBytes(level);
        break;
      }
    }
    d.put("space.amplification.x100", bottom == 0 ? 100 : v.totalBytes() * 100 / bottom);
    d.put("bytes.user.written", userBytes.sum());
    d.put("bytes.flushed", flushed);
    d.put("bytes.compaction.read", bytesCompactionRead.sum());
    d.put("bytes.compaction.written", compacted);
    d.put("flushes", flushes.sum());
    d.put("compactions", compactions.sum());
    d.put("write.stalls", stalls.sum());
    d.put("write.stall.millis", stallNanos.sum() / 1_000_000);
    d.put("compactions.deferred.no.space", compactionsDeferred.sum());
    d.put("compaction.deferred", deferred ? 1L : 0L);
    d.put("memtable.bytes", memBytes);
    d.put("memtable.arena.bytes", arenaBytes);
    d.put("immutable.memtables", (long) s.imms().size());
    long hits = cache.hits();
    long total = hits + cache.misses();
    d.put("block.cache.bytes", cache.usedBytes());
    d.put("block.cache.memory.bytes", cache.shared().offHeapBytes());
    d.put("block.cache.hit.rate.permille", total == 0 ? 0 : hits * 1000 / total);
    d.put("block.cache.hits", hits);
    d.put("block.cache.misses", total - hits);
    d.put("row.cache.hits", cache.rowHits());
    d.put("row.cache.misses", cache.rowMisses());
    d.put("open.files", (long) files.openCount());
    d.put("resident.readers", (long) files.residentCount());
    long indexBytes = 0;
    for (int level = 0; level < v.levelCount(); level++) {
      for (FileMetadata f : v.files(level)) {
        if (f.openedReader() != null) {
          indexBytes += f.openedReader().memoryBytes();
        }
      }
    }
    d.put("index.filter.bytes", indexBytes);
    for (int level = 0; level < v.levelCount(); level++) {
      d.put("level." + level + ".files", (long) v.files(level).size());
      d.put("level." + level + ".bytes", v.levelBytes(level));
    }
    d.put("last.seq", lastSeq);
    d.put("persisted.lsn", versions.persistedLsn());
    return new EngineStats(entries, v.totalBytes() + versions.manifestBytes(), d);
  }
}
