package org.kvstore.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding (RFC 3986) of binary keys in paths and query strings. Paths are decoded from the
 * raw request path, segment by segment, so {@code %2F} is a byte of a key and not a separator, and
 * {@code +} is itself; in a query string {@code +} is a space (as HTML forms, Python's
 * {@code urlencode} and {@code curl --data-urlencode} write it).
 *
 * <p>Thread safety: stateless.
 */
final class PercentCoding {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private PercentCoding() {}

  /**
   * The bytes of a path segment or query component.
   *
   * @throws HttpProblem invalid_argument naming {@code what} for a '%' not followed by two hex digits
   */
  static byte[] decode(String raw, boolean plusIsSpace, String what) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        if (i + 2 >= raw.length()) {
          throw HttpProblem.invalid(what + ": '%' must be followed by two hex digits");
        }
        int hi = Character.digit(raw.charAt(i + 1), 16);
        int lo = Character.digit(raw.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw HttpProblem.invalid(what + ": '%' must be followed by two hex digits");
        }
        out.write(hi << 4 | lo);
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        out.write(' ');
      } else if (c <= 0xFF) {
        out.write(c); // the request line is read byte by byte (ISO-8859-1): a raw byte is itself
      } else {
        byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        out.write(utf8, 0, utf8.length);
      }
    }
    return out.toByteArray();
  }

  /** A name (database, table) from a path segment: its bytes must be UTF-8. */
  static String decodeText(String raw, String what) {
    return utf8(decode(raw, false, what));
  }

  /** {@code bytes} as text when they are valid UTF-8, else null. */
  static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** {@code bytes} as one path segment: unreserved characters as they are, every other byte as %XX. */
  static String encode(byte[] bytes) {
    StringBuilder sb = new StringBuilder(bytes.length * 3);
    for (byte b : bytes) {
      int c = b & 0xFF;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~') {
        sb.append((char) c);
      } else {
        sb.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    return sb.toString();
  }
}
