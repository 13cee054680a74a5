package org.kvstore.lsm.compaction;

import java.util.List;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;

/**
 * One compaction picked from a version: the files of {@code level} to rewrite into
 * {@code outputLevel} (the next level, or {@code level} itself for a rewrite of a file of the last
 * level), the overlapping files of the output level, and the version they were picked from (pinned
 * by the caller).
 *
 * <p>Thread safety: immutable.
 *
 * @param reclaim picked for what its inputs hold to reclaim (tombstones, expired entries), not for
 *     the size of its level: it always rewrites its inputs, never moves a file as it is
 */
public record Compaction(
    Version version, int level, int outputLevel, List<FileMetadata> inputs, List<FileMetadata> overlaps,
    boolean reclaim) {

  /** A compaction of {@code level} into the next level, for the size of {@code level}. */
  public Compaction(Version version, int level, List<FileMetadata> inputs, List<FileMetadata> overlaps) {
    this(version, level, level + 1, inputs, overlaps, false);
  }

  /**
   * A single file with nothing below to merge with and nothing to reclaim: moved by a manifest edit
   * alone.
   */
  public boolean isTrivialMove() {
    return !reclaim && inputs.size() == 1 && overlaps.isEmpty() && outputLevel != level;
  }

  public long inputBytes() {
    long n = 0;
    for (FileMetadata f : inputs) {
      n += f.fileSize();
    }
    for (FileMetadata f : overlaps) {
      n += f.fileSize();
    }
    return n;
  }
}
