package org.kvstore.bench.load.workload;

/**
 * A pseudo-random bijection of [0, n): a four-round Feistel network over the smallest even power
 * of two that holds n, with cycle walking (a value that lands past n is permuted again until it
 * falls inside), so a shuffled order of millions of keys needs no array.
 *
 * <p>Thread safety: immutable.
 */
public final class KeyPermutation {
  private static final int ROUNDS = 4;
  private final long n;
  private final int halfBits;
  private final long halfMask;
  private final long[] roundKeys = new long[ROUNDS];

  public KeyPermutation(long n, long seed) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be at least 1, was " + n);
    }
    this.n = n;
    int bits = Math.max(2, 64 - Long.numberOfLeadingZeros(n - 1));
    if (bits % 2 == 1) {
      bits++;
    }
    this.halfBits = bits / 2;
    this.halfMask = (1L << halfBits) - 1;
    long s = seed;
    for (int i = 0; i < ROUNDS; i++) {
      s = mix(s + 0x9E3779B97F4A7C15L);
      roundKeys[i] = s;
    }
  }

  /** The image of {@code i}, REQUIRES: 0 <= i < n. */
  public long apply(long i) {
    if (i < 0 || i >= n) {
      throw new IllegalArgumentException("index " + i + " is outside [0, " + n + ")");
    }
    long x = i;
    do {
      x = encrypt(x);
    } while (x >= n);
    return x;
  }

  private long encrypt(long x) {
    long left = x >>> halfBits;
    long right = x & halfMask;
    for (long k : roundKeys) {
      long f = mix(right ^ k) & halfMask;
      long t = right;
      right = left ^ f;
      left = t;
    }
    return (left << halfBits) | right;
  }

  /** SplitMix64's finaliser: a cheap, well-spread 64-bit mix. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
