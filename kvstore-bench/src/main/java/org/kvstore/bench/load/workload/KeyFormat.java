package org.kvstore.bench.load.workload;

import java.nio.charset.StandardCharsets;

/**
 * The bytes of record i's key: {@code k} and i in decimal, zero-padded to {@code keyBytes} (KeksDB's
 * 12-byte keys are {@code k00000012345}), so keys sort in record order and print readably.
 *
 * <p>Thread safety: immutable.
 */
public record KeyFormat(int keyBytes) {
  /** The shortest key: {@code k} and ten digits hold every record number below 10^10. */
  public static final int MIN_KEY_BYTES = 11;

  public KeyFormat {
    if (keyBytes < MIN_KEY_BYTES || keyBytes > 1024) {
      throw new IllegalArgumentException("keyBytes must be in [" + MIN_KEY_BYTES + ", 1024], was " + keyBytes);
    }
  }

  public byte[] key(long record) {
    byte[] k = new byte[keyBytes];
    k[0] = 'k';
    long n = record;
    for (int p = keyBytes - 1; p >= 1; p--) {
      k[p] = (byte) ('0' + n % 10);
      n /= 10;
    }
    return k;
  }

  public String keyText(long record) {
    return new String(key(record), StandardCharsets.US_ASCII);
  }
}
