package org.kvstore.server.thrift;

import io.netty.buffer.ByteBuf;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.transport.TTransport;

/**
 * The four transport/protocol combinations one Thrift port serves, told apart by a connection's
 * first bytes (CLIENTS.md 7.1):
 *
 * <pre>
 *   0x80 ...                      unframed strict binary   (TSocket + TBinaryProtocol)
 *   0x82 ...                      unframed compact         (TSocket + TCompactProtocol)
 *   len:4 (big endian) 0x80 ...   framed binary            (TFramedTransport + TBinaryProtocol)
 *   len:4 (big endian) 0x82 ...   framed compact           (TFramedTransport + TCompactProtocol)
 * </pre>
 *
 * A frame length's first byte is 0x00 for every frame under 16 MiB, so it never looks like a
 * message start; non-strict (pre-0.x "old style") binary messages are not served.
 *
 * <p>Thread safety: immutable.
 */
public enum ThriftWireFormat {
  UNFRAMED_BINARY(false, true),
  UNFRAMED_COMPACT(false, false),
  FRAMED_BINARY(true, true),
  FRAMED_COMPACT(true, false);

  /** First byte of a strict binary message (version 1, high byte). */
  static final int BINARY_START = 0x80;
  /** First byte of a compact message (protocol id). */
  static final int COMPACT_START = 0x82;

  private final boolean framed;
  private final boolean binary;

  ThriftWireFormat(boolean framed, boolean binary) {
    this.framed = framed;
    this.binary = binary;
  }

  public boolean framed() {
    return framed;
  }

  public boolean binary() {
    return binary;
  }

  /** A protocol of this format over {@code transport} (the frame, if any, is handled outside). */
  TProtocol protocol(TTransport transport) {
    return binary ? new TBinaryProtocol(transport, false, true) : new TCompactProtocol(transport);
  }

  /**
   * The format of a connection whose first readable bytes are {@code in} (not consumed), null when
   * more bytes are needed to tell.
   *
   * @throws ThriftWireException when the bytes are not the start of any format served
   */
  static ThriftWireFormat detect(ByteBuf in) {
    if (!in.isReadable()) {
      return null;
    }
    int first = in.getUnsignedByte(in.readerIndex());
    if (first == BINARY_START) {
      return UNFRAMED_BINARY;
    }
    if (first == COMPACT_START) {
      return UNFRAMED_COMPACT;
    }
    if (in.readableBytes() < 5) {
      return null;
    }
    int fifth = in.getUnsignedByte(in.readerIndex() + 4);
    if (fifth == BINARY_START) {
      return FRAMED_BINARY;
    }
    if (fifth == COMPACT_START) {
      return FRAMED_COMPACT;
    }
    throw new ThriftWireException(String.format(
        "not a Thrift message start: first bytes %02x..%02x (expected 0x80 binary or 0x82 compact,"
            + " unframed or after a 4-byte frame length)", first, fifth));
  }
}
