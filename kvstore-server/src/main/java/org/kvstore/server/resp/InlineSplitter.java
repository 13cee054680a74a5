package org.kvstore.server.resp;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline command line into arguments the way Redis' {@code sdssplitargs} does: arguments
 * are separated by white space; {@code "..."} understands {@code \n \r \t \b \a \\ \"} and
 * {@code \xHH}; {@code '...'} understands {@code \'}; a closing quote must be followed by white
 * space or the end of the line.
 *
 * <p>Thread safety: stateless.
 */
final class InlineSplitter {
  private InlineSplitter() {}

  /** The arguments of {@code line} (without its line end), or {@code null} for unbalanced quotes. */
  static List<byte[]> split(byte[] line) {
    List<byte[]> args = new ArrayList<>();
    int p = 0;
    int n = line.length;
    while (true) {
      while (p < n && isSpace(line[p])) {
        p++;
      }
      if (p >= n) {
        return args;
      }
      ByteArrayOutputStream cur = new ByteArrayOutputStream();
      boolean inDouble = false;
      boolean inSingle = false;
      boolean done = false;
      while (!done) {
        if (inDouble) {
          if (p >= n) {
            return null;
          }
          byte c = line[p];
          if (c == '\\' && p + 3 < n && line[p + 1] == 'x' && isHex(line[p + 2]) && isHex(line[p + 3])) {
            cur.write(hex(line[p + 2]) * 16 + hex(line[p + 3]));
            p += 3;
          } else if (c == '\\' && p + 1 < n) {
            p++;
            byte e = line[p];
            cur.write(switch (e) {
              case 'n' -> '\n';
              case 'r' -> '\r';
              case 't' -> '\t';
              case 'b' -> '\b';
              case 'a' -> 7;
              default -> e;
            });
          } else if (c == '"') {
            if (p + 1 < n && !isSpace(line[p + 1])) {
              return null; // closing quote must be followed by a space
            }
            done = true;
          } else {
            cur.write(c);
          }
        } else if (inSingle) {
          if (p >= n) {
            return null;
          }
          byte c = line[p];
          if (c == '\\' && p + 1 < n && line[p + 1] == '\'') {
            p++;
            cur.write('\'');
          } else if (c == '\'') {
            if (p + 1 < n && !isSpace(line[p + 1])) {
              return null;
            }
            done = true;
          } else {
            cur.write(c);
          }
        } else {
          if (p >= n) {
            done = true;
            continue;
          }
          byte c = line[p];
          if (isSpace(c)) {
            done = true;
          } else if (c == '"') {
            inDouble = true;
          } else if (c == '\'') {
            inSingle = true;
          } else {
            cur.write(c);
          }
        }
        if (p < n) {
          p++;
        }
      }
      args.add(cur.toByteArray());
    }
  }

  private static boolean isSpace(byte c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
  }

  private static boolean isHex(byte c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static int hex(byte c) {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
  }
}
