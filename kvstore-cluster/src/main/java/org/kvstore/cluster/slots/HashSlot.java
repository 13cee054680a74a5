package org.kvstore.cluster.slots;

/**
 * The Redis Cluster hash slot of a key: CRC16 (the XMODEM variant: polynomial 0x1021, initial value
 * 0, no reflection) of the key, modulo 16384. When the key holds a hash tag, a {@code {} followed
 * later by a {@code }} with at least one byte between them, only the bytes between the first
 * {@code {} and the first {@code }} after it are hashed, so {@code {user1}.a} and {@code {user1}.b}
 * share a slot; {@code {}x} and {@code x{}} hash whole.
 *
 * <p>Thread safety: stateless.
 */
public final class HashSlot {
  /** Slots of the key space, numbered 0 to 16383. */
  public static final int COUNT = 16384;

  private static final int[] TABLE = new int[256];

  static {
    for (int b = 0; b < 256; b++) {
      int crc = b << 8;
      for (int i = 0; i < 8; i++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      TABLE[b] = crc & 0xFFFF;
    }
  }

  private HashSlot() {}

  /** The slot of {@code key}. */
  public static int of(byte[] key) {
    int open = indexOf(key, (byte) '{', 0);
    if (open >= 0) {
      int close = indexOf(key, (byte) '}', open + 1);
      if (close > open + 1) {
        return crc16(key, open + 1, close) & (COUNT - 1);
      }
    }
    return crc16(key, 0, key.length) & (COUNT - 1);
  }

  /** CRC16/XMODEM of {@code bytes[from, to)}. */
  static int crc16(byte[] bytes, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
    }
    return crc;
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
