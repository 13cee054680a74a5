package org.kvstore.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The lower-case name of a request's first argument, from a small cache of the names seen, so
 * that decoding a pipelined {@code GET} does not build two strings ("GET", then "get") per request.
 *
 * <p>Thread safety: a racy cache of immutable entries shared by the event loops; a lost or
 * overwritten store only costs a later miss, and an entry is used only when its bytes match.
 */
final class CommandNames {
  private static final int SLOTS = 256;
  private static final int MAX_CACHED_LENGTH = 32;
  private static final Entry[] CACHE = new Entry[SLOTS];

  /** A name and its lower-case bytes. */
  private record Entry(byte[] lower, String name) {}

  private CommandNames() {}

  /** The lower-case name of {@code raw} (command names are ASCII and case-insensitive). */
  static String lowerCase(byte[] raw) {
    if (raw.length > MAX_CACHED_LENGTH) {
      return compute(raw);
    }
    int h = 0;
    for (byte b : raw) {
      h = 31 * h + asciiLower(b);
    }
    int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
    Entry e = CACHE[slot];
    if (e != null && equalsLowered(e.lower, raw)) {
      return e.name;
    }
    String name = compute(raw);
    CACHE[slot] = new Entry(name.getBytes(StandardCharsets.ISO_8859_1), name);
    return name;
  }

  private static String compute(byte[] raw) {
    return new String(raw, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
  }

  private static int asciiLower(byte b) {
    return b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b;
  }

  /** Whether {@code raw} with ASCII letters lowered equals {@code lower}. */
  private static boolean equalsLowered(byte[] lower, byte[] raw) {
    if (lower.length != raw.length) {
      return false;
    }
    for (int i = 0; i < raw.length; i++) {
      if (asciiLower(raw[i]) != lower[i]) {
        return false;
      }
    }
    return true;
  }
}
