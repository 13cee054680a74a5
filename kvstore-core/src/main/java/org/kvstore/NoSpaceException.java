package org.kvstore;

import java.nio.file.Path;

/**
 * The store refused a write because its disk is full: a write-ahead log append, a flush, a
 * compaction or a checkpoint ran out of space (ENOSPC). Nothing of the refused write is in the log,
 * so it will not appear after a restart either. Reads keep working; the store retries the failed
 * work in the background and takes writes again by itself once space is freed (docs/durability.md,
 * "Disk full").
 *
 * <p>The message says that the disk is full and names the directory (and file) that ran out.
 *
 * <p>Thread safety: immutable.
 */
public final class NoSpaceException extends KVStoreException {
  private static final long serialVersionUID = 1L;
  private final transient Path directory;

  public NoSpaceException(Path directory, String detail, Throwable cause) {
    super("disk full: No space left on device in " + directory + " (" + detail
        + "); writes are refused until space is freed, reads go on", cause);
    this.directory = directory;
  }

  /** The directory whose file system ran out of space. */
  public Path directory() {
    return directory;
  }
}
