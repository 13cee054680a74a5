package org.kvstore.bench.load.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class KeyPermutationTest {
  @Test
  void apply_everySize_isABijection() {
    for (long n : new long[] {1, 2, 3, 17, 1000, 65_537}) {
      KeyPermutation p = new KeyPermutation(n, n * 31);
      BitSet seen = new BitSet();
      for (long i = 0; i < n; i++) {
        long v = p.apply(i);
        assertThat(v).isBetween(0L, n - 1);
        seen.set((int) v);
      }
      assertThat(seen.cardinality()).as("n=%d", n).isEqualTo((int) n);
    }
  }
}
