package org.kvstore;

import java.nio.file.Path;

/** Another process (or another store in this process) holds the data directory. Thread safety: immutable. */
public final class StoreLockedException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public StoreLockedException(Path directory) {
    super("data directory " + directory + " is in use by another process (lock file "
        + directory.resolve("LOCK") + " is held)");
  }
}
