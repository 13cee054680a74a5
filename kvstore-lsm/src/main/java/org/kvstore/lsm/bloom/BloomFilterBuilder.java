package org.kvstore.lsm.bloom;

import java.util.Arrays;

/**
 * Collects the hashes of a table's user keys and builds its bloom filter block
 * (docs/format/bloom.md) sized for the configured false-positive rate.
 *
 * <p>Thread safety: confined to one thread (the SSTable writer's).
 */
public final class BloomFilterBuilder {
  private final double fpRate;
  private long[] hashes = new long[1024];
  private int count;

  /** REQUIRES: {@code 0 < fpRate < 1}. */
  public BloomFilterBuilder(double fpRate) {
    if (!(fpRate > 0 && fpRate < 1)) {
      throw new IllegalArgumentException("bloom.fp.rate must be above 0 and below 1, was " + fpRate);
    }
    this.fpRate = fpRate;
  }

  public void add(byte[] userKey) {
    addHash(BloomFormat.hash(userKey));
  }

  /** Adds a key by its {@link BloomFormat#hash}, for a caller that needs the hash itself too. */
  public void addHash(long keyHash) {
    if (count == hashes.length) {
      hashes = Arrays.copyOf(hashes, count * 2);
    }
    hashes[count++] = keyHash;
  }

  public int keyCount() {
    return count;
  }

  /** The filter block contents (without the block trailer). */
  public byte[] finish() {
    double bitsPerKey = BloomFormat.bitsPerKey(fpRate);
    int numHashes = BloomFormat.numHashes(bitsPerKey);
    long bits = (long) Math.ceil(count * bitsPerKey);
    bits = Math.max(BloomFormat.MIN_BITS, (bits + 7) / 8 * 8);
    if (bits > 0xFFFF_FFF8L) {
      throw new IllegalStateException("bloom filter of " + count + " keys exceeds 2^32 bits");
    }
    byte[] out = new byte[BloomFormat.HEADER_BYTES + (int) (bits / 8)];
    out[0] = (byte) BloomFormat.VERSION;
    out[1] = (byte) numHashes;
    for (int i = 0; i < 4; i++) {
      out[2 + i] = (byte) (bits >>> (8 * i));
    }
    for (int n = 0; n < count; n++) {
      long h = hashes[n];
      long delta = BloomFormat.delta(h);
      for (int i = 0; i < numHashes; i++) {
        long bit = Long.remainderUnsigned(h, bits);
        out[BloomFormat.HEADER_BYTES + (int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
        h += delta;
      }
    }
    return out;
  }
}
