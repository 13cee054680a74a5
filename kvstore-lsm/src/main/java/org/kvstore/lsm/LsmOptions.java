package org.kvstore.lsm;

import java.util.List;
import org.kvstore.lsm.sstable.BlockCompression;
import org.kvstore.spi.PropertySpec;
import org.kvstore.spi.TableProperties;

/**
 * The options of one LSM table, read once from its validated {@link TableProperties}. Defaults
 * follow RocksDB's where it has the same knob (4 KiB blocks, 10 bits per key bloom filters, L0
 * trigger 4, L0 stop 36, level base 256 MiB, ratio 10, target file 64 MiB), but for the write
 * buffer: 128 MiB, twice RocksDB's, so that a Redis-style working set of 100,000 500-byte values
 * (about 70 MB of memtable) stays in the memtable; the store's write buffer budget bounds the
 * memtables of all tables together.
 * See docs/decisions/0020-write-buffer-and-checkpoint-log-size.md.
 *
 * <p>Thread safety: immutable.
 */
public record LsmOptions(
    long memtableBytes,
    int blockBytes,
    double bloomFpRate,
    long blockCacheBytes,
    boolean fillCacheOnFlush,
    boolean fillCacheOnCompaction,
    boolean rowCache,
    boolean fillRowsOnFlush,
    boolean fillRowsOnCompaction,
    BlockCompression compression,
    int maxOpenFiles,
    int maxImmutableMemtables,
    int level0CompactionTrigger,
    int level0StopWritesTrigger,
    int levelSizeRatio,
    long level1MaxBytes,
    long targetFileBytes,
    int numLevels) {

  public static final PropertySpec<Long> MEMTABLE_SIZE =
      PropertySpec.ofBytes("memtable.size", 128L << 20, 4L << 10, 1L << 30,
          "bytes of the write buffer; when full it becomes immutable and is flushed to an SSTable");
  public static final PropertySpec<Long> BLOCK_SIZE =
      PropertySpec.ofBytes("block.size", 4L << 10, 256, 1L << 20, "target bytes of an SSTable data block");
  public static final PropertySpec<Double> BLOOM_FP_RATE =
      PropertySpec.ofDouble("bloom.fp.rate", 0.01, 0.0, 0.5,
          "false-positive rate of each SSTable's bloom filter");
  public static final PropertySpec<Long> BLOCK_CACHE_SIZE =
      PropertySpec.ofBytes("block.cache.size", 0, 0, 1L << 40,
          "bytes of a block cache of this table's own; 0: the table uses the block cache the "
              + "store's lsm tables share (StoreOptions.blockCacheBytes, the server's "
              + "--block-cache-size)");
  public static final PropertySpec<Boolean> BLOCK_CACHE_FILL_ON_FLUSH =
      PropertySpec.ofBoolean("block.cache.fill.on.flush", true,
          "put the data blocks a flush writes into the block cache (RocksDB's prepopulate_block_cache "
              + "= kFlushOnly): the keys written last are the likeliest to be read next");
  public static final PropertySpec<Boolean> BLOCK_CACHE_FILL_ON_COMPACTION =
      PropertySpec.ofBoolean("block.cache.fill.on.compaction", true,
          "put the data blocks a compaction writes into the block cache, up to as many bytes as its "
              + "input files had there, so a working set that was cached stays cached when its files "
              + "are rewritten");
  public static final PropertySpec<Boolean> ROW_CACHE =
      PropertySpec.ofBoolean("row.cache", true,
          "keep the rows point reads find in SSTables in the block cache's memory beside the blocks "
              + "(RocksDB's row_cache): a hot key read after its memtable was flushed costs one hash "
              + "probe, not an index search, a block probe and a search in the block");
  public static final PropertySpec<Boolean> ROW_CACHE_FILL_ON_FLUSH =
      PropertySpec.ofBoolean("row.cache.fill.on.flush", true,
          "with row.cache, put the rows that point reads found in a memtable into the row cache when "
              + "that memtable is flushed: a key read while it was in the memtable stays one hash probe "
              + "away after the flush, where it would otherwise miss until its second read from the "
              + "SSTable (keys only written are not put there)");
  public static final PropertySpec<Boolean> ROW_CACHE_FILL_ON_COMPACTION =
      PropertySpec.ofBoolean("row.cache.fill.on.compaction", true,
          "with row.cache, a compaction caches the output row of every key whose row was cached for "
              + "one of its input files (whose rows are dropped with them), so hot rows stay hot "
              + "when their files are rewritten");
  public static final PropertySpec<BlockCompression> COMPRESSION =
      PropertySpec.ofEnum("compression", BlockCompression.class, BlockCompression.NONE,
          "compression of SSTable data blocks");
  public static final PropertySpec<Integer> MAX_OPEN_FILES =
      PropertySpec.ofInt("max.open.files", 1000, 8, 1_000_000,
          "SSTables kept open: file handles, and indexes and bloom filters held in memory (least "
              + "recently used ones are closed and dropped, and reopened on their next use)");
  public static final PropertySpec<Integer> MAX_IMMUTABLE_MEMTABLES =
      PropertySpec.ofInt("max.immutable.memtables", 3, 1, 64,
          "immutable memtables that may wait for their flush before writes stall");
  public static final PropertySpec<Integer> LEVEL0_COMPACTION_TRIGGER =
      PropertySpec.ofInt("level0.compaction.trigger", 4, 1, 1000,
          "level-0 files that start a compaction into level 1");
  public static final PropertySpec<Integer> LEVEL0_STOP_WRITES_TRIGGER =
      PropertySpec.ofInt("level0.stop.writes.trigger", 36, 2, 10000,
          "level-0 files at which writes stall until compaction catches up");
  public static final PropertySpec<Integer> LEVEL_SIZE_RATIO =
      PropertySpec.ofInt("level.size.ratio", 10, 2, 1000, "size ratio between adjacent levels");
  public static final PropertySpec<Long> LEVEL1_MAX_SIZE =
      PropertySpec.ofBytes("level1.max.size", 256L << 20, 16L << 10, 1L << 50, "target bytes of level 1");
  public static final PropertySpec<Long> TARGET_FILE_SIZE =
      PropertySpec.ofBytes("target.file.size", 64L << 20, 8L << 10, 1L << 34,
          "bytes at which a compaction starts a new output SSTable");
  public static final PropertySpec<Integer> NUM_LEVELS =
      PropertySpec.ofInt("num.levels", 7, 2, 20, "number of levels (0 to n-1)");

  /** Every property, in the order the user sees them. */
  public static final List<PropertySpec<?>> PROPERTIES =
      List.of(
          MEMTABLE_SIZE, BLOCK_SIZE, BLOOM_FP_RATE, BLOCK_CACHE_SIZE, BLOCK_CACHE_FILL_ON_FLUSH,
          BLOCK_CACHE_FILL_ON_COMPACTION, ROW_CACHE, ROW_CACHE_FILL_ON_FLUSH,
          ROW_CACHE_FILL_ON_COMPACTION, COMPRESSION, MAX_OPEN_FILES,
          MAX_IMMUTABLE_MEMTABLES, LEVEL0_COMPACTION_TRIGGER, LEVEL0_STOP_WRITES_TRIGGER,
          LEVEL_SIZE_RATIO, LEVEL1_MAX_SIZE, TARGET_FILE_SIZE, NUM_LEVELS);

  public LsmOptions {
    if (level0StopWritesTrigger <= level0CompactionTrigger) {
      throw new IllegalArgumentException(
          "level0.stop.writes.trigger (" + level0StopWritesTrigger
              + ") must exceed level0.compaction.trigger (" + level0CompactionTrigger + ")");
    }
  }

  public static LsmOptions from(TableProperties p) {
    return new LsmOptions(
        p.get(MEMTABLE_SIZE), p.get(BLOCK_SIZE).intValue(), p.get(BLOOM_FP_RATE),
        p.get(BLOCK_CACHE_SIZE), p.get(BLOCK_CACHE_FILL_ON_FLUSH),
        p.get(BLOCK_CACHE_FILL_ON_COMPACTION), p.get(ROW_CACHE), p.get(ROW_CACHE_FILL_ON_FLUSH),
        p.get(ROW_CACHE_FILL_ON_COMPACTION), p.get(COMPRESSION), p.get(MAX_OPEN_FILES),
        p.get(MAX_IMMUTABLE_MEMTABLES), p.get(LEVEL0_COMPACTION_TRIGGER),
        p.get(LEVEL0_STOP_WRITES_TRIGGER), p.get(LEVEL_SIZE_RATIO), p.get(LEVEL1_MAX_SIZE),
        p.get(TARGET_FILE_SIZE), p.get(NUM_LEVELS));
  }

  /** The target bytes of {@code level} (1 and up). */
  public long levelMaxBytes(int level) {
    double v = level1MaxBytes;
    for (int i = 1; i < level; i++) {
      v *= levelSizeRatio;
    }
    return (long) Math.min(v, Long.MAX_VALUE / 2);
  }
}
