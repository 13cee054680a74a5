package org.kvstore.lsm.compaction;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.kvstore.lsm.LsmOptions;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;

/**
 * Leveled compaction picking, as leveldb and RocksDB do it: each level gets a score (level 0: file
 * count over {@code level0.compaction.trigger}; level n: bytes over its target
 * {@code level1.max.size * ratio^(n-1)}); the highest score of at least 1 is compacted. Level 0
 * compacts all its files (they overlap) with the overlapping level-1 files; a level n compacts one
 * file, chosen round-robin by key (the compact pointer), with the overlapping files of level n+1.
 *
 * <p>Thread safety: confined to the compaction thread (the compact pointers are its state).
 */
public final class CompactionPicker {
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
      return null;
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
}
