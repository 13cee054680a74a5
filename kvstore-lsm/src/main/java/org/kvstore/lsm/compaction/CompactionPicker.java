package org.kvstore.lsm.compaction;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.kvstore.lsm.LsmOptions;
import org.kvstore.lsm.sstable.FileStats;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;

/**
 * Leveled compaction picking, as leveldb and RocksDB do it: each level gets a score (level 0: file
 * count over {@code level0.compaction.trigger}; level n: bytes over its target
 * {@code level1.max.size * ratio^(n-1)}); the highest score of at least 1 is compacted. Level 0
 * compacts all its files (they overlap) with the overlapping level-1 files; a level n compacts one
 * file, chosen round-robin by key (the compact pointer), with the overlapping files of level n+1.
 *
 * <p>When no level is due by size, a file that is mostly garbage is (RocksDB's deletion-triggered
 * compaction and files marked for compaction): one whose tombstones and expired entries (estimated
 * from its {@link FileStats} at the clock's time) reach {@link #RECLAIM_FRACTION} of its entries.
 * The lowest such level goes first. A level-0 file takes all of level 0 with it into level 1, a
 * file of level n takes the overlapping files of level n+1, and a file of the last level is
 * rewritten where it is; such a compaction always rewrites (no trivial move), so its tombstones
 * and expired entries are dropped where nothing older lies below, and pushed one level down
 * otherwise, until they reach the bottom. Each rewrite leaves the file's expired entries behind (or
 * as tombstones one level lower), so a file is not picked again for the same garbage. See
 * docs/decisions/0026-lsm-expiry.md.
 *
 * <p>Thread safety: confined to the compaction thread (the compact pointers are its state).
 */
public final class CompactionPicker {
  /** The share of a file's entries that, reclaimable, makes it worth a compaction of its own. */
  public static final double RECLAIM_FRACTION = 0.5;

  private final LsmOptions options;
  private final Clock clock;
  private final byte[][] compactPointer;

  public CompactionPicker(LsmOptions options, Clock clock) {
    this.options = options;
    this.clock = clock;
    this.compactPointer = new byte[options.numLevels()][];
  }

  /** The score of {@code level} in {@code v}; compaction is due at 1 or more. */
  public double score(Version v, int level) {
    if (level == 0) {
      return (double) v.files(0).size() / options.level0CompactionTrigger();
    }
    return (double) v.levelBytes(level) / options.levelMaxBytes(level);
  }

  /** The compaction due in {@code v}, or {@code null}. REQUIRES: the caller pins {@code v}. */
  public Compaction pick(Version v) {
    int best = -1;
    double bestScore = 1.0;
    for (int level = 0; level < v.levelCount() - 1; level++) {
      double s = score(v, level);
      if (s >= bestScore) {
        best = level;
        bestScore = s;
      }
    }
    if (best < 0) {
      return pickReclaim(v);
    }
    List<FileMetadata> inputs;
    if (best == 0) {
      inputs = new ArrayList<>(v.files(0));
    } else {
      inputs = new ArrayList<>();
      List<FileMetadata> files = v.files(best);
      FileMetadata chosen = files.get(0);
      byte[] ptr = compactPointer[best];
      if (ptr != null) {
        for (FileMetadata f : files) {
          if (Arrays.compareUnsigned(f.smallest(), ptr) > 0) {
            chosen = f;
            break;
          }
        }
      }
      inputs.add(chosen);
      compactPointer[best] = chosen.largest();
    }
    byte[] lo = null;
    byte[] hi = null;
    for (FileMetadata f : inputs) {
      if (lo == null || Arrays.compareUnsigned(f.smallest(), lo) < 0) {
        lo = f.smallest();
      }
      if (hi == null || Arrays.compareUnsigned(f.largest(), hi) > 0) {
        hi = f.largest();
      }
    }
    return new Compaction(v, best, inputs, v.overlapping(best + 1, lo, hi));
  }

  /** Whether {@code f} is mostly reclaimable at {@code nowMillis}. */
  public static boolean isMostlyGarbage(FileMetadata f, long nowMillis) {
    return f.entries() > 0 && f.stats().reclaimableAt(nowMillis) >= RECLAIM_FRACTION * f.entries();
  }

  /** A compaction of the lowest level's first mostly-garbage file, or {@code null}. */
  private Compaction pickReclaim(Version v) {
    long now = clock.millis();
    int last = v.levelCount() - 1;
    for (int level = 0; level <= last; level++) {
      for (FileMetadata f : v.files(level)) {
        if (!isMostlyGarbage(f, now)) {
          continue;
        }
        if (level == 0) {
          List<FileMetadata> inputs = new ArrayList<>(v.files(0));
          byte[] lo = null;
          byte[] hi = null;
          for (FileMetadata in : inputs) {
            lo = lo == null || Arrays.compareUnsigned(in.smallest(), lo) < 0 ? in.smallest() : lo;
            hi = hi == null || Arrays.compareUnsigned(in.largest(), hi) > 0 ? in.largest() : hi;
          }
          return new Compaction(v, 0, 1, inputs, v.overlapping(1, lo, hi), true);
        }
        if (level == last) {
          return new Compaction(v, level, level, List.of(f), List.of(), true);
        }
        return new Compaction(
            v, level, level + 1, List.of(f), v.overlapping(level + 1, f.smallest(), f.largest()), true);
      }
    }
    return null;
  }
}
