package org.kvstore.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.kvstore.io.StorageFile;
import org.kvstore.stats.HistogramRecorder;

/**
 * Frames records into the 32 KiB blocks of one log segment (docs/format/wal.md) and writes them.
 * Records are first framed into a buffer ({@link #frame}) and then written together
 * ({@link #writeFramed}), so a group of concurrent records costs one {@code write()}.
 *
 * <p>A failed write (a full disk) is undone: the file is cut back to the end of the last complete
 * write, so no partial record stays behind and the segment can take later records.
 *
 * <p>Thread safety: externally synchronized (the log's write lock); {@link #sync()} may run
 * concurrently with writes.
 */
final class WalWriter implements AutoCloseable {
  private final StorageFile file;
  private final long segmentNumber;
  /** Where each fsync's duration goes (the log's, shared by its segments). */
  private final HistogramRecorder syncNanos;
  /** End of the bytes framed so far (written or in the buffer). */
  private long framedEnd;
  /** End of the bytes written to the file. */
  private long writtenEnd;
  private ByteBuffer buffer = ByteBuffer.allocateDirect(256 * 1024).order(ByteOrder.LITTLE_ENDIAN);

  WalWriter(StorageFile file, long segmentNumber, long end, HistogramRecorder syncNanos) {
    this.file = file;
    this.segmentNumber = segmentNumber;
    this.syncNanos = syncNanos;
    this.framedEnd = end;
    this.writtenEnd = end;
  }

  Path path() {
    return file.path();
  }

  long segmentNumber() {
    return segmentNumber;
  }

  /** Bytes in the segment once the framed bytes are written. */
  long size() {
    return framedEnd;
  }

  /** Frames one logical record of {@code payload} ({@code headerRecord}: a segment header). */
  void frame(byte[] payload, boolean headerRecord) {
    frame(payload, payload.length, headerRecord);
  }

  /** Frames one logical record of the first {@code length} bytes of {@code payload}. */
  void frame(byte[] payload, int length, boolean headerRecord) {
    int pos = 0;
    boolean first = true;
    do {
      int leftInBlock = WalFormat.BLOCK_SIZE - (int) (framedEnd % WalFormat.BLOCK_SIZE);
      if (leftInBlock < WalFormat.HEADER_BYTES) {
        ensure(leftInBlock);
        for (int i = 0; i < leftInBlock; i++) {
          buffer.put((byte) 0);
        }
        framedEnd += leftInBlock;
        leftInBlock = WalFormat.BLOCK_SIZE;
      }
      int avail = leftInBlock - WalFormat.HEADER_BYTES;
      int len = Math.min(avail, length - pos);
      boolean last = pos + len == length;
      byte type;
      if (headerRecord) {
        type = WalFormat.SEGMENT_HEADER;
      } else if (first && last) {
        type = WalFormat.FULL;
      } else if (first) {
        type = WalFormat.FIRST;
      } else if (last) {
        type = WalFormat.LAST;
      } else {
        type = WalFormat.MIDDLE;
      }
      ensure(WalFormat.HEADER_BYTES + len);
      buffer.putInt(WalFormat.crc(type, payload, pos, len));
      buffer.putShort((short) len);
      buffer.put(type);
      buffer.put(payload, pos, len);
      framedEnd += WalFormat.HEADER_BYTES + len;
      pos += len;
      first = false;
    } while (pos < length);
  }

  private void ensure(int n) {
    if (buffer.remaining() < n) {
      int cap = Math.max(buffer.capacity() * 2, buffer.position() + n);
      ByteBuffer bigger = ByteBuffer.allocateDirect(cap).order(ByteOrder.LITTLE_ENDIAN);
      buffer.flip();
      bigger.put(buffer);
      buffer = bigger;
    }
  }

  /**
   * Writes everything framed since the last call. On failure the segment is cut back to its last
   * good end and the framed bytes are dropped.
   *
   * @throws WalAppendException when the write failed but the segment is intact (e.g. disk full)
   * @throws IOException when cutting back failed too: the segment is in an unknown state
   */
  void writeFramed() throws IOException {
    buffer.flip();
    try {
      file.writeFully(buffer, writtenEnd);
      writtenEnd = framedEnd;
    } catch (IOException e) {
      try {
        file.truncate(writtenEnd);
      } catch (IOException undo) {
        e.addSuppressed(undo);
        throw e;
      } finally {
        framedEnd = writtenEnd;
      }
      throw new WalAppendException(file.path(), writtenEnd, e);
    } finally {
      buffer.clear();
      if (buffer.capacity() > 4 << 20) {
        buffer = ByteBuffer.allocateDirect(256 * 1024).order(ByteOrder.LITTLE_ENDIAN); // give back a huge record's buffer
      }
    }
  }

  /** Fsyncs the segment and records how long that took (a failed fsync is not recorded). */
  void sync() throws IOException {
    long start = System.nanoTime();
    file.sync();
    syncNanos.record(System.nanoTime() - start);
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
