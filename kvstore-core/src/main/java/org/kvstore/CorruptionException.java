package org.kvstore;

import java.nio.file.Path;

/**
 * Stored bytes failed a check (checksum, magic, version, structure). Never a wrong value: the read
 * that found the damage fails with this error instead. The message names the file, the byte offset
 * and what was wrong.
 *
 * <p>Thread safety: immutable.
 */
public class CorruptionException extends KVStoreException {
  private static final long serialVersionUID = 1L;
  private final transient Path path;
  private final long offset;
  private final String detail;

  public CorruptionException(Path path, long offset, String detail) {
    super("corruption in " + path + " at offset " + offset + ": " + detail);
    this.path = path;
    this.offset = offset;
    this.detail = detail;
  }

  public Path path() {
    return path;
  }

  /** Byte offset of the damaged structure in {@link #path()}, or -1 when it is the whole file. */
  public long offset() {
    return offset;
  }

  public String detail() {
    return detail;
  }
}
