package org.kvstore.lsm.bloom;

import org.kvstore.codec.FixedLE;

/**
 * Constants and the key hash of the bloom filter block, documented byte by byte in
 * docs/format/bloom.md. A change to these bytes updates that doc, the golden file
 * {@code golden/bloom-v1.bin} and {@link #VERSION} together.
 *
 * <p>Thread safety: stateless.
 */
public final class BloomFormat {
  /** The filter layout version, first byte of the block. Readers reject other values. */
  public static final int VERSION = 1;
  /** Bytes before the bit array: version u8, numHashes u8, numBits u32 LE. */
  public static final int HEADER_BYTES = 6;
  /** The fewest bits a filter has, so tiny tables do not degenerate. */
  public static final int MIN_BITS = 64;
  /** The most hash probes per key. */
  public static final int MAX_HASHES = 30;

  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;

  private BloomFormat() {}

  /** The 64-bit hash of a user key that docs/format/bloom.md ("Hash") defines. */
  public static long hash(byte[] key) {
    long h = P3 ^ (key.length * P1);
    int i = 0;
    for (; i + 8 <= key.length; i += 8) {
      long k = FixedLE.getLong(key, i);
      k *= P2;
      k = Long.rotateLeft(k, 31);
      k *= P1;
      h ^= k;
      h = Long.rotateLeft(h, 27) * P1 + P3;
    }
    for (; i < key.length; i++) {
      h ^= (key[i] & 0xFF) * P3;
      h = Long.rotateLeft(h, 11) * P1;
    }
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }

  /** The probe step derived from a hash: odd, so probes do not cycle early. */
  public static long delta(long hash) {
    return Long.rotateLeft(hash, 21) | 1L;
  }

  /** Bits per key for a false-positive rate: {@code -ln(p) / ln(2)^2}. */
  public static double bitsPerKey(double fpRate) {
    return -Math.log(fpRate) / (Math.log(2) * Math.log(2));
  }

  /** Probes per key: {@code round(bitsPerKey * ln 2)}, clamped to 1..{@link #MAX_HASHES}. */
  public static int numHashes(double bitsPerKey) {
    return (int) Math.max(1, Math.min(MAX_HASHES, Math.round(bitsPerKey * Math.log(2))));
  }
}
