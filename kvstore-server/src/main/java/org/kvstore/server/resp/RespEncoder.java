package org.kvstore.server.resp;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes {@link RespMessage} replies as RESP2 or RESP3 bytes. The protocol version is a parameter
 * rather than state: a connection switches version in the middle of a pipeline ({@code HELLO 3}),
 * and each reply is encoded with the version in force when its command ran.
 *
 * <p>Thread safety: stateless.
 */
public final class RespEncoder {
  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL_RESP3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
  /** Digits of 0..99 as two bytes each; speeds up the frequent small lengths. */
  private static final byte[] DIGITS = new byte[200];

  static {
    for (int i = 0; i < 100; i++) {
      DIGITS[2 * i] = (byte) ('0' + i / 10);
      DIGITS[2 * i + 1] = (byte) ('0' + i % 10);
    }
  }

  private RespEncoder() {}

  /** Appends {@code message} to {@code out} in protocol {@code protocol} (2 or 3). */
  public static void encode(RespMessage message, int protocol, ByteBuf out) {
    if (message instanceof RespMessage.BulkString b) {
      writeBulk(out, b.value());
    } else if (message instanceof RespMessage.SimpleString s) {
      out.writeByte('+');
      writeLine(out, s.text());
    } else if (message instanceof RespMessage.IntegerReply i) {
      out.writeByte(':');
      writeLong(out, i.value());
      out.writeBytes(CRLF);
    } else if (message instanceof RespMessage.NullReply) {
      out.writeBytes(protocol >= 3 ? NULL_RESP3 : NULL_BULK);
    } else if (message instanceof RespMessage.NullArrayReply) {
      out.writeBytes(protocol >= 3 ? NULL_RESP3 : NULL_ARRAY);
    } else if (message instanceof RespMessage.ErrorReply e) {
      out.writeByte('-');
      writeLine(out, e.text());
    } else if (message instanceof RespMessage.ArrayReply a) {
      List<RespMessage> items = a.items();
      out.writeByte('*');
      writeLong(out, items.size());
      out.writeBytes(CRLF);
      for (RespMessage item : items) {
        encode(item, protocol, out);
      }
    } else if (message instanceof RespMessage.EncodedArray e) {
      if (e.count() != RespMessage.EncodedArray.HEADER_SENT) {
        writeArrayHeader(out, e.count());
      }
      for (int i = 0; i < e.parts().size(); i++) {
        out.writeBytes(e.parts().get(i), 0, e.partLength(i));
      }
    } else if (message instanceof RespMessage.MapReply m) {
      int n = m.keys().size();
      if (protocol >= 3) {
        out.writeByte('%');
        writeLong(out, n);
      } else {
        out.writeByte('*');
        writeLong(out, 2L * n);
      }
      out.writeBytes(CRLF);
      for (int i = 0; i < n; i++) {
        encode(m.keys().get(i), protocol, out);
        encode(m.values().get(i), protocol, out);
      }
    } else {
      throw new IllegalArgumentException("unknown reply type " + message.getClass());
    }
  }

  /** Writes {@code *n\r\n}, the header of an array of {@code n} elements. */
  static void writeArrayHeader(ByteBuf out, long n) {
    out.writeByte('*');
    writeLong(out, n);
    out.writeBytes(CRLF);
  }

  /** An estimate of the encoded size, used to size the output buffer once. */
  public static int sizeHint(RespMessage message) {
    return (int) Math.min(Integer.MAX_VALUE, encodedSizeEstimate(message));
  }

  /** About the bytes {@code message} encodes to: exact for bulk strings, 64 for other scalars. */
  static long encodedSizeEstimate(RespMessage message) {
    if (message instanceof RespMessage.BulkString b) {
      return b.value().length + 16L;
    }
    if (message instanceof RespMessage.EncodedArray e) {
      return e.bytes() + 16;
    }
    if (message instanceof RespMessage.ArrayReply a) {
      long n = 16;
      for (RespMessage m : a.items()) {
        n += encodedSizeEstimate(m);
      }
      return n;
    }
    return 64;
  }

  static void writeBulk(ByteBuf out, byte[] value) {
    out.writeByte('$');
    writeLong(out, value.length);
    out.writeBytes(CRLF);
    out.writeBytes(value);
    out.writeBytes(CRLF);
  }

  /** Writes a status or error text, replacing CR and LF so the line cannot break the framing. */
  private static void writeLine(ByteBuf out, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '\r' || bytes[i] == '\n') {
        bytes[i] = ' ';
      }
    }
    out.writeBytes(bytes);
    out.writeBytes(CRLF);
  }

  /** Writes the decimal digits of {@code v} without allocating. */
  static void writeLong(ByteBuf out, long v) {
    if (v >= 0 && v < 100) {
      if (v >= 10) {
        out.writeByte(DIGITS[(int) (2 * v)]);
      }
      out.writeByte(DIGITS[(int) (2 * v + 1)]);
      return;
    }
    if (v == Long.MIN_VALUE) {
      out.writeCharSequence("-9223372036854775808", StandardCharsets.US_ASCII);
      return;
    }
    if (v < 0) {
      out.writeByte('-');
      v = -v;
    }
    int digits = 1;
    for (long t = v / 10; t != 0; t /= 10) {
      digits++;
    }
    int end = out.writerIndex() + digits;
    out.ensureWritable(digits);
    for (int i = end - 1; i >= end - digits; i--) {
      out.setByte(i, (int) ('0' + v % 10));
      v /= 10;
    }
    out.writerIndex(end);
  }
}
