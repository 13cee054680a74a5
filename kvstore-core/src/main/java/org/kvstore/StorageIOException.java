package org.kvstore;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
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

  /**
   * What went wrong. A {@link FileSystemException}'s message is often the bare file name (a
   * missing file says only its path), so those are described as what happened, then the file.
   */
  static String describe(IOException e) {
    if (e instanceof FileSystemException f) {
      String what = f.getReason() != null ? f.getReason() : kindOf(f);
      return what + ": " + f.getFile() + (f.getOtherFile() != null ? " (and " + f.getOtherFile() + ")" : "");
    }
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }

  /** {@link #describe} of {@code e}, for other exceptions' messages. */
  public static String describeCause(IOException e) {
    return describe(e);
  }

  private static String kindOf(FileSystemException f) {
    if (f instanceof NoSuchFileException) {
      return "no such file";
    }
    if (f instanceof AccessDeniedException) {
      return "access denied";
    }
    if (f instanceof FileAlreadyExistsException) {
      return "file already exists";
    }
    if (f instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (f instanceof DirectoryNotEmptyException) {
      return "directory not empty";
    }
    return f.getClass().getSimpleName();
  }
}
