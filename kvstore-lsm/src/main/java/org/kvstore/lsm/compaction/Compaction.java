package org.kvstore.lsm.compaction;

import java.util.List;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;

/**
 * One compaction picked from a version: the files of {@code level} to push down, the overlapping
 * files of {@code level + 1}, and the version they were picked from (pinned by the caller).
 *
 * <p>Thread safety: immutable.
 */
public record Compaction(Version version, int level, List<FileMetadata> inputs, List<FileMetadata> overlaps) {
  public int outputLevel() {
    return level + 1;
  }

  /** A single file with nothing below to merge with: moved by a manifest edit alone. */
  public boolean isTrivialMove() {
    return inputs.size() == 1 && overlaps.isEmpty();
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
