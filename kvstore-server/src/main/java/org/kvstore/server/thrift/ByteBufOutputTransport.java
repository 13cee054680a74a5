package org.kvstore.server.thrift;

import io.netty.buffer.ByteBuf;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * A write-only transport appending to a Netty buffer (the reply, handed to the channel as is). A
 * connection keeps one and points it at each reply's buffer in turn ({@link #target}).
 *
 * <p>Thread safety: confined to one thread.
 */
final class ByteBufOutputTransport extends TTransport {
  private ByteBuf buf;

  ByteBufOutputTransport(ByteBuf buf) {
    this.buf = buf;
  }

  /** Appends to {@code buf} from now on. */
  void target(ByteBuf buf) {
    this.buf = buf;
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
    throw new TTransportException(TTransportException.UNKNOWN, "write-only transport");
  }

  @Override
  public void write(byte[] in, int off, int len) {
    buf.writeBytes(in, off, len);
  }

  @Override
  public TConfiguration getConfiguration() {
    return TConfiguration.DEFAULT;
  }

  @Override
  public void updateKnownMessageSize(long size) {}

  @Override
  public void checkReadBytesAvailable(long numBytes) {}
}
