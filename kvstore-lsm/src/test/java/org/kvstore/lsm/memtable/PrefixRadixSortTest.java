package org.kvstore.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvstore.codec.FixedBE;
import org.kvstore.testkit.Seeds;

/** The prefix radix sort against {@link Arrays#compareUnsigned}, at sizes on both sides of its cut-over. */
class PrefixRadixSortTest {
  /** A byte-string key ordered as memtable user keys are: unsigned bytes, shorter first on a tie. */
  private record Key(byte[] bytes) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      return Arrays.compareUnsigned(bytes, o.bytes);
    }

    long prefix0() {
      return FixedBE.getLongPadded(bytes, 0, bytes.length);
    }

    long prefix1() {
      return FixedBE.getLongPadded(bytes, 8, bytes.length);
    }
  }

  /**
   * Keys from bytes that test the edges: 0x00 (a key and the same key with trailing zeros have
   * equal prefixes), 0x7F/0x80 (signedness), 0xFF; up to 24 bytes, so that many share their 16
   * prefix bytes; duplicates; with {@code commonFirst} the same first byte, so that passes are
   * skipped, otherwise a first byte from the edges too (the prefix's sign bit).
   */
  private static Key[] keys(Random rnd, int n, boolean commonFirst) {
    byte[] edges = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFF};
    Key[] out = new Key[n];
    for (int i = 0; i < n; i++) {
      if (i > 0 && rnd.nextInt(10) == 0) {
        byte[] earlier = out[rnd.nextInt(i)].bytes();
        out[i] = new Key(rnd.nextBoolean() ? earlier.clone() : Arrays.copyOf(earlier, earlier.length + 1 + rnd.nextInt(3)));
        continue;
      }
      byte[] k = new byte[1 + rnd.nextInt(24)];
      k[0] = commonFirst || rnd.nextBoolean() ? (byte) 'k' : edges[rnd.nextInt(edges.length)];
      for (int j = 1; j < k.length; j++) {
        k[j] = rnd.nextInt(4) == 0 ? edges[rnd.nextInt(edges.length)] : (byte) ('0' + rnd.nextInt(3));
      }
      out[i] = new Key(k);
    }
    return out;
  }

  @Test
  void sortsLikeAComparisonSort_andKeepsThePrefixesWithTheirKeys() {
    long seed = Seeds.seed("PrefixRadixSortTest.sort");
    Random rnd = new Random(seed);
    for (int n : new int[] {0, 1, 2, 63, 64, 65, 1_000, 20_000}) {
      for (int round = 0; round < 4; round++) {
        Key[] a = keys(rnd, n, round % 2 == 0);
        long[] p0 = new long[n];
        long[] p1 = new long[n];
        for (int i = 0; i < n; i++) {
          p0[i] = a[i].prefix0();
          p1[i] = a[i].prefix1();
        }
        Key[] want = a.clone();
        Arrays.sort(want);
        PrefixRadixSort.sort(a, p0, p1);
        for (int i = 0; i < n; i++) {
          assertThat(a[i].bytes()).as("seed %d n %d position %d", seed, n, i).isEqualTo(want[i].bytes());
          assertThat(p0[i]).as("seed %d n %d prefix0 at %d", seed, n, i).isEqualTo(a[i].prefix0());
          assertThat(p1[i]).as("seed %d n %d prefix1 at %d", seed, n, i).isEqualTo(a[i].prefix1());
        }
      }
    }
  }
}
