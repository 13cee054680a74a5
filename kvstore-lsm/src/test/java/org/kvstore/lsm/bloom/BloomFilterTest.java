package org.kvstore.lsm.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BloomFilterTest {

  private static byte[] key(long i) {
    return ByteBuffer.allocate(12).putInt(0x6b657900).putLong(i).array();
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.1, 0.01, 0.001})
  void falsePositiveRate_isNearTheConfiguredRate_andNoFalseNegatives(double rate) {
    int n = 20_000;
    BloomFilterBuilder b = new BloomFilterBuilder(rate);
    for (int i = 0; i < n; i++) {
      b.add(key(i));
    }
    BloomFilter f = BloomFilter.decode(b.finish());
    for (int i = 0; i < n; i++) {
      assertThat(f.mayContain(key(i))).isTrue();
    }
    int probes = 200_000;
    int fp = 0;
    for (int i = 0; i < probes; i++) {
      if (f.mayContain(key(1_000_000L + i))) {
        fp++;
      }
    }
    double measured = (double) fp / probes;
    assertThat(measured).as("measured FP rate for %s", rate).isBetween(rate * 0.5, rate * 1.5);
  }
}
