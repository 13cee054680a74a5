package org.kvstore.wal;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Appending to the log failed, but the log is intact: the partial write was cut off, so the records
 * of the failed group are not in the log and the log takes later records (for example once disk
 * space is freed). Other I/O failures of the log are fatal.
 *
 * <p>Thread safety: immutable.
 */
public final class WalAppendException extends IOException {
  private static final long serialVersionUID = 1L;

  WalAppendException(Path segment, long offset, IOException cause) {
    super("appending to " + segment + " at offset " + offset + " failed (the log was cut back; nothing of the failed writes is in it): " + cause.getMessage(), cause);
  }
}
