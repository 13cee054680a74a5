package org.kvstore.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FixedBETest {
  @Test
  void getLongPadded_wholeWord_isBigEndian() {
    byte[] b = {9, 1, 2, 3, 4, 5, 6, 7, 8};
    assertThat(FixedBE.getLongPadded(b, 1, b.length)).isEqualTo(0x0102030405060708L);
  }

  @Test
  void getLongPadded_pastLimit_padsWithZeros() {
    byte[] b = {1, 2, 3, 99, 99};
    assertThat(FixedBE.getLongPadded(b, 0, 3)).isEqualTo(0x0102030000000000L);
    assertThat(FixedBE.getLongPadded(b, 3, 3)).isZero();
  }

  @Test
  void getLongPadded_unsignedOrder_agreesWithByteOrderWhenDifferent() {
    String[] keys = {"", "a", "a\0", "ab", "b", "\u00ff", "abcdefgh", "abcdefgi", "zz"};
    for (String x : keys) {
      for (String y : keys) {
        byte[] a = x.getBytes(StandardCharsets.ISO_8859_1);
        byte[] c = y.getBytes(StandardCharsets.ISO_8859_1);
        long pa = FixedBE.getLongPadded(Arrays.copyOf(a, 8), 0, a.length);
        long pc = FixedBE.getLongPadded(Arrays.copyOf(c, 8), 0, c.length);
        if (pa != pc) {
          assertThat(Integer.signum(Long.compareUnsigned(pa, pc)))
              .as("%s vs %s", x, y)
              .isEqualTo(Integer.signum(Arrays.compareUnsigned(a, c)));
        }
      }
    }
  }
}
