package org.kvstore.server.thrift;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TList;
import org.apache.thrift.protocol.TMap;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TSet;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TTransportException;

/**
 * Cuts a Thrift connection's bytes into {@link ThriftRequest}s. The first bytes fix the
 * connection's {@link ThriftWireFormat}. A framed message is bounded by its length prefix, checked
 * against the limit before anything is buffered (a 2 GiB length closes the connection without
 * allocating); an unframed message is found by walking its structure as the bytes arrive.
 *
 * <p>Every message is walked once here, without copying its values, before any handler sees it:
 * it must be a call, hold exactly one well-formed argument struct, nest at most
 * {@link #MAX_DEPTH} deep and fit in the limit. Anything else is a {@link ThriftWireException}:
 * the server logs it and closes the connection, as libthrift's own servers do with bytes they
 * cannot parse. So the generated code, which skips unknown fields recursively without a bound,
 * never meets a deep nesting.
 *
 * <p>Thread safety: confined to the channel's event loop.
 */
public final class ThriftMessageDecoder extends ByteToMessageDecoder {
  /** Deepest nesting of structs and containers accepted (libthrift's default recursion limit). */
  public static final int MAX_DEPTH = TConfiguration.DEFAULT_RECURSION_DEPTH;

  private final int maxMessageBytes;
  private final ByteBufInputTransport scanTransport;
  private ThriftWireFormat format;
  private TProtocol scanProtocol;
  /** Unframed: readable bytes the last incomplete walk needed; no new walk before they are there. */
  private long waitForBytes;

  /** @param maxMessageBytes largest message (frame payload, or unframed message) accepted */
  public ThriftMessageDecoder(int maxMessageBytes) {
    this.maxMessageBytes = maxMessageBytes;
    this.scanTransport = new ByteBufInputTransport(
        new TConfiguration(maxMessageBytes, maxMessageBytes, MAX_DEPTH));
  }

  /** The connection's format, or null before its first bytes. */
  public ThriftWireFormat format() {
    return format;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (format == null) {
      format = ThriftWireFormat.detect(in);
      if (format == null) {
        return;
      }
      scanProtocol = format.protocol(scanTransport);
    }
    if (format.framed()) {
      decodeFramed(in, out);
    } else {
      decodeUnframed(in, out);
    }
  }

  private void decodeFramed(ByteBuf in, List<Object> out) {
    if (in.readableBytes() < 4) {
      return;
    }
    long length = in.getUnsignedInt(in.readerIndex());
    if (length == 0 || length > maxMessageBytes) {
      throw new ThriftWireException("frame of " + length + " bytes: frames must be 1 to " + maxMessageBytes
          + " bytes (thrift-max-frame-size)");
    }
    if (in.readableBytes() < 4 + length) {
      return;
    }
    in.skipBytes(4);
    ByteBuf frame = in.readSlice((int) length);
    int start = frame.readerIndex();
    String method;
    try {
      method = walk(frame, length);
    } catch (TTransportException e) {
      throw new ThriftWireException("malformed message in a frame of " + length + " bytes: " + e.getMessage());
    }
    if (frame.isReadable()) {
      throw new ThriftWireException("a frame of " + length + " bytes holds " + frame.readableBytes()
          + " bytes after its message");
    }
    byte[] message = new byte[(int) length];
    frame.getBytes(start, message);
    out.add(new ThriftRequest(format, method, message));
  }

  private void decodeUnframed(ByteBuf in, List<Object> out) {
    if (in.readableBytes() < waitForBytes) {
      return;
    }
    int start = in.readerIndex();
    String method;
    try {
      method = walk(in, maxMessageBytes);
    } catch (TTransportException e) {
      in.readerIndex(start);
      if (e.getType() != TTransportException.END_OF_FILE) {
        throw new ThriftWireException("malformed message: " + e.getMessage());
      }
      waitForBytes = scanTransport.needed();
      return;
    }
    waitForBytes = 0;
    int length = in.readerIndex() - start;
    byte[] message = new byte[length];
    in.getBytes(start, message);
    out.add(new ThriftRequest(format, method, message));
  }

  /**
   * Walks one call message from {@code in}'s reader index (moving it past the message) and returns
   * the method name.
   *
   * @throws TTransportException END_OF_FILE when the bytes end before the message; other types
   *     (and {@link ThriftWireException}) when the bytes cannot be a call within the limits
   */
  private String walk(ByteBuf in, long limit) throws TTransportException {
    scanTransport.reset(in, limit);
    try {
      TMessage m = scanProtocol.readMessageBegin();
      if (m.type != TMessageType.CALL) {
        throw new ThriftWireException("message type " + m.type + " of '" + m.name + "': only calls are served");
      }
      skip(TType.STRUCT, 1);
      scanProtocol.readMessageEnd();
      return m.name;
    } catch (TTransportException e) {
      throw e;
    } catch (TException e) {
      throw new TTransportException(TTransportException.CORRUPTED_DATA, e.getMessage());
    } catch (RuntimeException e) {
      if (e instanceof ThriftWireException) {
        throw e;
      }
      // The protocols throw unchecked exceptions on some garbage (negative sizes as array lengths).
      throw new TTransportException(TTransportException.CORRUPTED_DATA, e.toString());
    }
  }

  /** Skips one value of {@code type}; values are passed over without being copied. */
  private void skip(byte type, int depth) throws TException {
    TProtocol p = scanProtocol;
    switch (type) {
      case TType.BOOL -> p.readBool();
      case TType.BYTE -> p.readByte();
      case TType.I16 -> p.readI16();
      case TType.I32 -> p.readI32();
      case TType.I64 -> p.readI64();
      case TType.DOUBLE -> p.readDouble();
      case TType.STRING -> {
        int n = p.readI32();
        // The compact protocol writes a length as an unsigned varint, which readI32 decodes as zigzag.
        long size = format.binary() ? n : Integer.toUnsignedLong((n << 1) ^ (n >> 31));
        scanTransport.skip(size);
      }
      case TType.STRUCT -> {
        checkDepth(depth);
        p.readStructBegin();
        while (true) {
          TField f = p.readFieldBegin();
          if (f.type == TType.STOP) {
            break;
          }
          skip(f.type, depth + 1);
          p.readFieldEnd();
        }
        p.readStructEnd();
      }
      case TType.MAP -> {
        checkDepth(depth);
        TMap m = p.readMapBegin();
        for (int i = 0; i < m.size; i++) {
          skip(m.keyType, depth + 1);
          skip(m.valueType, depth + 1);
        }
        p.readMapEnd();
      }
      case TType.SET -> {
        checkDepth(depth);
        TSet s = p.readSetBegin();
        for (int i = 0; i < s.size; i++) {
          skip(s.elemType, depth + 1);
        }
        p.readSetEnd();
      }
      case TType.LIST -> {
        checkDepth(depth);
        TList l = p.readListBegin();
        for (int i = 0; i < l.size; i++) {
          skip(l.elemType, depth + 1);
        }
        p.readListEnd();
      }
      default -> throw new TTransportException(TTransportException.CORRUPTED_DATA, "unknown field type " + type);
    }
  }

  private static void checkDepth(int depth) {
    if (depth > MAX_DEPTH) {
      throw new ThriftWireException("message nests deeper than " + MAX_DEPTH + " levels");
    }
  }
}
