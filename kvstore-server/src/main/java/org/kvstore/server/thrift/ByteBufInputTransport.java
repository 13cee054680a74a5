package org.kvstore.server.thrift;

import io.netty.buffer.ByteBuf;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * A read-only transport over the readable bytes of a buffer, for finding where an unframed message
 * ends. When a read asks for more bytes than there are, it fails with {@code END_OF_FILE} and
 * records how many bytes from the start would have been needed ({@link #needed()}), so the decoder
 * tries again only once that many have arrived: a large value arriving in many reads is not
 * re-scanned at every read.
 *
 * <p>Thread safety: confined to one thread.
 */
final class ByteBufInputTransport extends TTransport {
  private final TConfiguration config;
  private ByteBuf buf;
  private int start;
  private long limit;
  private long needed;

  ByteBufInputTransport(TConfiguration config) {
    this.config = config;
  }

  /** Reads from {@code b}'s reader index on (moving it), at most {@code limitBytes} bytes in all. */
  void reset(ByteBuf b, long limitBytes) {
    this.buf = b;
    this.start = b.readerIndex();
    this.limit = limitBytes;
    this.needed = 0;
  }

  /** Bytes from the start that the failed read needed (0 when none failed). */
  long needed() {
    return needed;
  }

  /** Bytes consumed from the start. */
  int consumed() {
    return buf.readerIndex() - start;
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void open() {}

  @Override
  public void close() {}

  @Override
  public int read(byte[] out, int off, int len) throws TTransportException {
    return readAll(out, off, len);
  }

  @Override
  public int readAll(byte[] out, int off, int len) throws TTransportException {
    require(len);
    buf.readBytes(out, off, len);
    return len;
  }

  /** Skips {@code len} bytes (a value's payload) without copying them. */
  void skip(long len) throws TTransportException {
    require(len);
    buf.skipBytes((int) len);
  }

  @Override
  public void consumeBuffer(int len) {
    buf.skipBytes(len);
  }

  @Override
  public int getBytesRemainingInBuffer() {
    return -1; // no backing array: the protocols read through readAll
  }

  @Override
  public void write(byte[] in, int off, int len) throws TTransportException {
    throw new TTransportException(TTransportException.UNKNOWN, "read-only transport");
  }

  @Override
  public TConfiguration getConfiguration() {
    return config;
  }

  @Override
  public void updateKnownMessageSize(long size) {}

  /** Containers and strings announce their size first: over the limit is corrupt, beyond the data is "wait". */
  @Override
  public void checkReadBytesAvailable(long numBytes) throws TTransportException {
    require(numBytes);
  }

  private void require(long len) throws TTransportException {
    long end = (long) consumed() + len;
    if (len < 0 || end > limit) {
      throw new TTransportException(TTransportException.CORRUPTED_DATA,
          "message larger than the limit of " + limit + " bytes");
    }
    if (len > buf.readableBytes()) {
      needed = end;
      throw new TTransportException(TTransportException.END_OF_FILE, "need " + end + " bytes");
    }
  }
}
