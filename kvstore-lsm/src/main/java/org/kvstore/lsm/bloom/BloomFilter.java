package org.kvstore.lsm.bloom;

/**
 * A decoded bloom filter block: answers whether a table may contain a user key. Never a false
 * negative; false positives at about the rate it was built for.
 *
 * <p>Thread safety: immutable.
 */
public final class BloomFilter {
  private final byte[] bits;
  private final int numHashes;
  private final long numBits;

  private BloomFilter(byte[] bits, int numHashes, long numBits) {
    this.bits = bits;
    this.numHashes = numHashes;
    this.numBits = numBits;
  }

  /**
   * Decodes a filter block.
   *
   * @throws IllegalArgumentException describing what is wrong (the caller names file and offset)
   */
  public static BloomFilter decode(byte[] block) {
    if (block.length < BloomFormat.HEADER_BYTES) {
      throw new IllegalArgumentException("bloom filter block of " + block.length + " bytes is too short");
    }
    int version = block[0] & 0xFF;
    if (version != BloomFormat.VERSION) {
      throw new IllegalArgumentException("unknown bloom filter version " + version);
    }
    int numHashes = block[1] & 0xFF;
    long numBits = 0;
    for (int i = 3; i >= 0; i--) {
      numBits = (numBits << 8) | (block[2 + i] & 0xFF);
    }
    if (numHashes < 1 || numHashes > BloomFormat.MAX_HASHES || numBits % 8 != 0
        || numBits / 8 != block.length - BloomFormat.HEADER_BYTES || numBits == 0) {
      throw new IllegalArgumentException(
          "bad bloom filter header: " + numHashes + " hashes, " + numBits + " bits in "
              + block.length + " bytes");
    }
    byte[] bits = new byte[(int) (numBits / 8)];
    System.arraycopy(block, BloomFormat.HEADER_BYTES, bits, 0, bits.length);
    return new BloomFilter(bits, numHashes, numBits);
  }

  public boolean mayContain(byte[] userKey) {
    return mayContainHash(BloomFormat.hash(userKey));
  }

  /** As {@link #mayContain} for a precomputed {@link BloomFormat#hash}. */
  public boolean mayContainHash(long hash) {
    long h = hash;
    long delta = BloomFormat.delta(h);
    for (int i = 0; i < numHashes; i++) {
      long bit = Long.remainderUnsigned(h, numBits);
      if ((bits[(int) (bit >>> 3)] & (1 << (bit & 7))) == 0) {
        return false;
      }
      h += delta;
    }
    return true;
  }

  /** Heap bytes held. */
  public long memoryBytes() {
    return bits.length + 32L;
  }
}
