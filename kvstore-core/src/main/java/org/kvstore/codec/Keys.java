package org.kvstore.codec;

/**
 * Renders binary keys for error messages: printable ASCII as is, other bytes as {@code \xNN}, cut
 * after 64 bytes.
 *
 * <p>Thread safety: stateless.
 */
public final class Keys {
  private static final int MAX_SHOWN = 64;

  private Keys() {}

  public static String printable(byte[] key) {
    StringBuilder sb = new StringBuilder("'");
    int n = Math.min(key.length, MAX_SHOWN);
    for (int i = 0; i < n; i++) {
      int b = key[i] & 0xff;
      if (b >= 0x20 && b < 0x7f && b != '\\' && b != '\'') {
        sb.append((char) b);
      } else {
        sb.append(String.format("\\x%02x", b));
      }
    }
    sb.append('\'');
    if (key.length > MAX_SHOWN) {
      sb.append("... (").append(key.length).append(" bytes)");
    }
    return sb.toString();
  }
}
