package org.kvstore.lsm.version;

import java.util.ArrayList;
import java.util.List;

/**
 * One atomic change of the live file set, as one manifest record: files added and deleted per level
 * and the counters that move with them (docs/format/manifest.md).
 *
 * <p>Thread safety: confined to the thread that builds and logs it.
 */
public final class VersionEdit {
  /** A file at a level. */
  public record LevelFile(int level, FileMetadata file) {}

  /** A deletion of a file from a level. */
  public record Deletion(int level, long fileNum) {}

  long persistedLsn = -1;
  long lastSeqNum = -1;
  long nextFileNum = -1;
  final List<LevelFile> added = new ArrayList<>();
  final List<Deletion> deleted = new ArrayList<>();

  public VersionEdit persistedLsn(long lsn) {
    this.persistedLsn = lsn;
    return this;
  }

  public VersionEdit lastSeqNum(long seq) {
    this.lastSeqNum = seq;
    return this;
  }

  public VersionEdit nextFileNum(long n) {
    this.nextFileNum = n;
    return this;
  }

  public VersionEdit addFile(int level, FileMetadata f) {
    added.add(new LevelFile(level, f));
    return this;
  }

  public VersionEdit deleteFile(int level, long fileNum) {
    deleted.add(new Deletion(level, fileNum));
    return this;
  }

  public List<LevelFile> added() {
    return added;
  }

  public List<Deletion> deleted() {
    return deleted;
  }

  public long persistedLsn() {
    return persistedLsn;
  }

  public long lastSeqNum() {
    return lastSeqNum;
  }

  public long nextFileNum() {
    return nextFileNum;
  }
}
