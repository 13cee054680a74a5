package org.kvstore.lsm.cursor;

import java.io.IOException;
import java.util.List;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;

/**
 * Concatenates the cursors of a sorted, non-overlapping level (1 and up): opens one file at a time,
 * finding the first by binary search on the files' key ranges ({@link Version#findFileIndex}).
 *
 * <p>Thread safety: confined to one thread.
 */
public final class LevelCursor implements InternalCursor {
  private final List<FileMetadata> files;
  private final OpenFiles openFiles;
  private final BlockCache cache;
  private final boolean sequential;
  private int index = -1;
  private InternalCursor current;

  public LevelCursor(List<FileMetadata> files, OpenFiles openFiles, BlockCache cache, boolean sequential) {
    this.files = files;
    this.openFiles = openFiles;
    this.cache = cache;
    this.sequential = sequential;
  }

  @Override
  public boolean isValid() {
    return current != null && current.isValid();
  }

  @Override
  public void seekToFirst() throws IOException {
    open(0);
    if (current != null) {
      current.seekToFirst();
    }
    skipExhausted();
  }

  @Override
  public void seek(byte[] userKey, long seqNum) throws IOException {
    open(Version.findFileIndex(files, userKey));
    if (current != null) {
      current.seek(userKey, seqNum);
    }
    skipExhausted();
  }

  @Override
  public void next() throws IOException {
    current.next();
    skipExhausted();
  }

  private void open(int i) throws IOException {
    if (current != null) {
      current.close();
      current = null;
    }
    index = i;
    if (i < files.size()) {
      current = files.get(i).reader(openFiles, cache).newCursor(sequential);
    }
  }

  private void skipExhausted() throws IOException {
    while (current != null && !current.isValid()) {
      open(index + 1);
      if (current != null) {
        current.seekToFirst();
      }
    }
  }

  @Override
  public byte[] userKey() {
    return current.userKey();
  }

  @Override
  public long seqNum() {
    return current.seqNum();
  }

  @Override
  public ValueKind kind() {
    return current.kind();
  }

  @Override
  public long version() {
    return current.version();
  }

  @Override
  public long expiresAt() {
    return current.expiresAt();
  }

  @Override
  public byte[] value() throws IOException {
    return current.value();
  }

  @Override
  public void close() {
    if (current != null) {
      current.close();
      current = null;
    }
  }
}
