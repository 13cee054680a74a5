package org.kvstore;

import java.io.IOException;
import java.nio.file.Path;

/**
 * An I/O operation on a store file failed. The message names the file; the cause is the original
 * {@link IOException}.
 *
 * <p>Thread safety: immutable.
 */
public class StorageIOException extends KVStoreException {
  private static final long serialVersionUID = 1L;
  private final transient Path path;

  public StorageIOException(Path path, String operation, IOException cause) {
    super(operation + " failed on " + path + ": " + describe(cause), cause);
    this.path = path;
  }

  public StorageIOException(String message, IOException cause) {
    super(message + ": " + describe(cause), cause);
    this.path = null;
  }

  /** The file involved, or {@code null} when the failure is not tied to one file. */
  public Path path() {
    return path;
  }

  private static String describe(IOException e) {
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }
}
