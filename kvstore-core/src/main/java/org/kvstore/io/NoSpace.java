package org.kvstore.io;

import java.io.IOException;
import java.io.SyncFailedException;
import java.nio.file.FileSystemException;

/**
 * Recognizes a failure for lack of disk space (ENOSPC): an {@link java.io.IOException} whose message
 * (or a cause's) says {@value #MESSAGE}, as the JDK reports {@code write()}, {@code force()} and
 * {@code close()} failing with ENOSPC, and as the test file systems inject it.
 *
 * <p>A failed fsync is never "no space", whatever its cause says: after a failed fsync the page
 * cache can no longer be trusted (fsyncgate), so callers that sync a file whose bytes they keep wrap
 * the failure in a {@link SyncFailedException} ({@link #syncFailed}). Nor is a refusal because of an
 * earlier failure that was latched for good ({@link #failedEarlier}). Either, anywhere in the
 * chain, makes the whole failure "not no space".
 *
 * <p>Thread safety: stateless.
 */
public final class NoSpace {
  /** The text of {@code strerror(ENOSPC)}. */
  public static final String MESSAGE = "No space left on device";

  private NoSpace() {}

  /** Whether {@code e} or one of its causes is an ENOSPC failure, with no failed fsync on the way. */
  public static boolean causedBy(Throwable e) {
    boolean noSpace = false;
    int depth = 0;
    for (Throwable t = e; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t instanceof SyncFailedException || t instanceof FailedEarlier) {
        return false;
      }
      String m = t instanceof FileSystemException f && f.getReason() != null ? f.getReason() : t.getMessage();
      noSpace |= m != null && m.contains(MESSAGE);
    }
    return noSpace;
  }

  /**
   * An operation refused because an earlier failure was latched for good (a failed fsync, a tree
   * change that failed half way): never "no space", even when that earlier failure was ENOSPC.
   */
  public static IOException failedEarlier(String message, Throwable cause) {
    return new FailedEarlier(message, cause);
  }

  /**
   * Whether {@code e} or one of its causes is a refusal because an earlier failure was latched for
   * good ({@link #failedEarlier}): the operation cannot succeed before a reopen.
   */
  public static boolean isFailedEarlier(Throwable e) {
    int depth = 0;
    for (Throwable t = e; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t instanceof FailedEarlier) {
        return true;
      }
    }
    return false;
  }

  private static final class FailedEarlier extends IOException {
    private static final long serialVersionUID = 1L;

    FailedEarlier(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** {@code e} as a {@link SyncFailedException} naming {@code what}: a failed fsync, never "no space". */
  public static SyncFailedException syncFailed(String what, IOException e) {
    SyncFailedException s = new SyncFailedException("fsync of " + what + " failed: " + e.getMessage());
    s.initCause(e);
    return s;
  }
}
