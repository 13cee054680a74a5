package org.kvstore.io;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * An open file with positional reads and writes. There is no implicit file position: appenders keep
 * their own offset. Writes are durable only after {@link #sync()}.
 *
 * <p>Thread safety: thread-safe for positional reads and writes at distinct positions; callers
 * serialize writes that must not interleave.
 */
public interface StorageFile extends Closeable {

  Path path();

  /** Reads up to {@code dst.remaining()} bytes at {@code position}; returns -1 at end of file. */
  int read(ByteBuffer dst, long position) throws IOException;

  /** Writes up to {@code src.remaining()} bytes at {@code position}; returns the count written. */
  int write(ByteBuffer src, long position) throws IOException;

  long size() throws IOException;

  /** Cuts the file to {@code size} bytes (never grows it). */
  void truncate(long size) throws IOException;

  /**
   * Forces written data (and the metadata needed to read it back, such as the size) to the device.
   * A failure here is final for the file: callers must never retry a sync to "recover" (fsyncgate).
   */
  void sync() throws IOException;

  /** Reads exactly {@code dst.remaining()} bytes at {@code position}, or throws {@link EOFException}. */
  default void readFully(ByteBuffer dst, long position) throws IOException {
    long pos = position;
    while (dst.hasRemaining()) {
      int n = read(dst, pos);
      if (n < 0) {
        throw new EOFException(
            path() + ": unexpected end of file at offset " + pos + " (wanted " + dst.remaining()
                + " more bytes)");
      }
      pos += n;
    }
  }

  /** Writes all of {@code src} at {@code position}. */
  default void writeFully(ByteBuffer src, long position) throws IOException {
    long pos = position;
    while (src.hasRemaining()) {
      pos += write(src, pos);
    }
  }
}
