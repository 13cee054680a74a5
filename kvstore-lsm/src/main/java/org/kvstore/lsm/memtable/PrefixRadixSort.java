package org.kvstore.lsm.memtable;

import java.util.Arrays;

/**
 * Sorts keys whose order starts with a 16-byte prefix: the first 16 bytes of the key as two
 * big-endian longs, zero-padded, compared unsigned (as {@code MemTable}'s user keys keep them
 * inline), with the elements' own {@code compareTo} deciding among equal prefixes.
 *
 * <p>A stable least-significant-digit radix sort on the prefix bytes, one byte per pass, skipping
 * the bytes every key shares (a common first few bytes, such as {@code "key:"}, cost nothing), then
 * a comparison sort of each run of equal prefixes (keys longer than 16 bytes that share their first
 * 16, or a key and that key with trailing zero bytes). The passes read the prefixes from primitive
 * arrays in order, where a comparison sort of a memtable's keys loads two keys per comparison,
 * most of them cache misses. See docs/decisions/0006-radix-sort-new-keys.md.
 *
 * <p>Thread safety: stateless.
 */
final class PrefixRadixSort {
  /**
   * Below this many elements an insertion sort instead: each radix pass has a fixed cost (257
   * counters) that a handful of keys does not repay. A judgement, not a measurement.
   */
  static final int MIN_RADIX = 64;

  private PrefixRadixSort() {}

  /**
   * Sorts {@code a} ascending. {@code prefix0[i]} and {@code prefix1[i]} are the prefix of
   * {@code a[i]}; the arrays are permuted along with {@code a}. REQUIRES: the elements' natural
   * order is the prefix order first (unsigned, {@code prefix0} then {@code prefix1}).
   */
  static <T extends Comparable<? super T>> void sort(T[] a, long[] prefix0, long[] prefix1) {
    int n = a.length;
    if (prefix0.length != n || prefix1.length != n) {
      throw new IllegalArgumentException(
          "prefix arrays of " + prefix0.length + " and " + prefix1.length + " for " + n + " elements");
    }
    if (n < MIN_RADIX) {
      sortSmall(a, prefix0, prefix1);
      return;
    }
    long and0 = -1;
    long or0 = 0;
    long and1 = -1;
    long or1 = 0;
    for (int i = 0; i < n; i++) {
      and0 &= prefix0[i];
      or0 |= prefix0[i];
      and1 &= prefix1[i];
      or1 |= prefix1[i];
    }
    T[] items = a;
    long[] p0 = prefix0;
    long[] p1 = prefix1;
    T[] itemsTo = a.clone();
    long[] p0To = new long[n];
    long[] p1To = new long[n];
    int[] start = new int[257];
    // Least significant byte first: key bytes 15..8 (prefix1), then 7..0 (prefix0).
    for (int pass = 0; pass < 16; pass++) {
      boolean second = pass < 8;
      int shift = 8 * (pass % 8);
      if ((((second ? and1 ^ or1 : and0 ^ or0) >>> shift) & 0xFF) == 0) {
        continue; // every key has the same byte here
      }
      long[] digits = second ? p1 : p0;
      Arrays.fill(start, 0);
      for (int i = 0; i < n; i++) {
        start[(int) ((digits[i] >>> shift) & 0xFF) + 1]++;
      }
      for (int b = 1; b <= 256; b++) {
        start[b] += start[b - 1];
      }
      for (int i = 0; i < n; i++) {
        int to = start[(int) ((digits[i] >>> shift) & 0xFF)]++;
        itemsTo[to] = items[i];
        p0To[to] = p0[i];
        p1To[to] = p1[i];
      }
      T[] t = items;
      items = itemsTo;
      itemsTo = t;
      long[] l = p0;
      p0 = p0To;
      p0To = l;
      l = p1;
      p1 = p1To;
      p1To = l;
    }
    if (items != a) {
      System.arraycopy(items, 0, a, 0, n);
      System.arraycopy(p0, 0, prefix0, 0, n);
      System.arraycopy(p1, 0, prefix1, 0, n);
    }
    for (int from = 0, i = 1; i <= n; i++) {
      if (i == n || prefix0[i] != prefix0[from] || prefix1[i] != prefix1[from]) {
        if (i - from > 1) {
          Arrays.sort(a, from, i); // equal prefixes: the prefix arrays stay valid
        }
        from = i;
      }
    }
  }

  /** Insertion sort by prefix, then natural order, for a few elements. */
  private static <T extends Comparable<? super T>> void sortSmall(T[] a, long[] prefix0, long[] prefix1) {
    for (int i = 1; i < a.length; i++) {
      T x = a[i];
      long x0 = prefix0[i];
      long x1 = prefix1[i];
      int j = i - 1;
      while (j >= 0 && compare(a[j], prefix0[j], prefix1[j], x, x0, x1) > 0) {
        a[j + 1] = a[j];
        prefix0[j + 1] = prefix0[j];
        prefix1[j + 1] = prefix1[j];
        j--;
      }
      a[j + 1] = x;
      prefix0[j + 1] = x0;
      prefix1[j + 1] = x1;
    }
  }

  private static <T extends Comparable<? super T>> int compare(T a, long a0, long a1, T b, long b0, long b1) {
    if (a0 != b0) {
      return Long.compareUnsigned(a0, b0);
    }
    if (a1 != b1) {
      return Long.compareUnsigned(a1, b1);
    }
    return a.compareTo(b);
  }
}
