package org.kvstore.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class FixedLETest {
  @Test
  void putAndGet_values_areLittleEndianAndRoundTrip() {
    byte[] b = new byte[15];
    FixedLE.putU16(b, 1, 0xBEEF);
    FixedLE.putInt(b, 3, 0x01020304);
    FixedLE.putLong(b, 7, 0x1122334455667788L);
    assertThat(HexFormat.of().formatHex(b)).isEqualTo("00efbe04030201" + "8877665544332211");
    assertThat(FixedLE.getU16(b, 1)).isEqualTo(0xBEEF);
    assertThat(FixedLE.getInt(b, 3)).isEqualTo(0x01020304);
    assertThat(FixedLE.getLong(b, 7)).isEqualTo(0x1122334455667788L);
  }

  @Test
  void getAndPut_extremes_roundTrip() {
    byte[] b = new byte[8];
    for (long v : new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE}) {
      FixedLE.putLong(b, 0, v);
      assertThat(FixedLE.getLong(b, 0)).isEqualTo(v);
    }
    for (int v : new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      FixedLE.putInt(b, 4, v);
      assertThat(FixedLE.getInt(b, 4)).isEqualTo(v);
    }
    FixedLE.putU16(b, 0, 0xFFFF);
    assertThat(FixedLE.getU16(b, 0)).isEqualTo(0xFFFF);
    FixedLE.putU16(b, 0, 0x1_0001);
    assertThat(FixedLE.getU16(b, 0)).isEqualTo(1);
  }

  @Test
  void getLong_pastTheEnd_throwsIndexOutOfBounds() {
    assertThatThrownBy(() -> FixedLE.getLong(new byte[10], 3)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
