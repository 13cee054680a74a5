package org.kvstore.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class VarintsTest {
  private static final long[] BOUNDARIES = {
    0, 1, 127, 128, 16_383, 16_384, (1L << 21) - 1, 1L << 21, Integer.MAX_VALUE, 1L << 32,
    Long.MAX_VALUE, -1, Long.MIN_VALUE
  };

  @Test
  void put_boundaries_writesLeb128Bytes() {
    assertThat(encode(0)).isEqualTo("00");
    assertThat(encode(127)).isEqualTo("7f");
    assertThat(encode(128)).isEqualTo("8001");
    assertThat(encode(300)).isEqualTo("ac02");
    assertThat(encode(16_384)).isEqualTo("808001");
    assertThat(encode(Integer.MAX_VALUE)).isEqualTo("ffffffff07");
    assertThat(encode(Long.MAX_VALUE)).isEqualTo("ffffffffffffffff7f");
    assertThat(encode(-1)).isEqualTo("ffffffffffffffffff01");
  }

  @Test
  void sizeOf_boundaries_matchesPut() {
    byte[] b = new byte[Varints.MAX_BYTES];
    for (long v : BOUNDARIES) {
      assertThat(Varints.sizeOf(v)).as("size of %d", v).isEqualTo(Varints.put(b, 0, v));
    }
    assertThat(Varints.sizeOf(127)).isEqualTo(1);
    assertThat(Varints.sizeOf(128)).isEqualTo(2);
    assertThat(Varints.sizeOf(Integer.MAX_VALUE)).isEqualTo(Varints.MAX_INT_BYTES);
    assertThat(Varints.sizeOf(-1)).isEqualTo(Varints.MAX_BYTES);
  }

  @Test
  void get_boundaries_roundTripsAndAdvances() {
    for (long v : BOUNDARIES) {
      byte[] b = new byte[3 + Varints.MAX_BYTES];
      int end = Varints.put(b, 3, v);
      int[] pos = {3};
      assertThat(Varints.get(b, pos, end)).as("value %d", v).isEqualTo(v);
      assertThat(pos[0]).isEqualTo(end);
    }
  }

  @Test
  void get_truncated_throwsNamingTheOffset() {
    byte[] b = {0x05, (byte) 0x80, (byte) 0x80};
    int[] pos = {1};
    assertThatThrownBy(() -> Varints.get(b, pos, b.length))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("truncated varint")
        .hasMessageContaining("at offset 1")
        .satisfies(e -> assertThat(((CodecException) e).offset()).isEqualTo(1));
    assertThat(pos[0]).isEqualTo(1);
  }

  @Test
  void get_limitBeforeTheEnd_neverReadsPastIt() {
    byte[] b = new byte[4];
    Varints.put(b, 0, 300);
    assertThatThrownBy(() -> Varints.get(b, new int[] {0}, 1))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("limit 1");
  }

  @Test
  void get_elevenBytes_throwsTooLong() {
    byte[] b = new byte[12];
    java.util.Arrays.fill(b, (byte) 0x80);
    assertThatThrownBy(() -> Varints.get(b, new int[] {0}, b.length))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("longer than 10 bytes at offset 0");
  }

  @Test
  void getInt_valueAboveIntRange_throwsAndKeepsPosition() {
    byte[] b = new byte[Varints.MAX_BYTES];
    int end = Varints.put(b, 0, 1L << 31);
    int[] pos = {0};
    assertThatThrownBy(() -> Varints.getInt(b, pos, end))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("2147483648 out of int range at offset 0");
    assertThat(pos[0]).isZero();
    Varints.put(b, 0, Integer.MAX_VALUE);
    assertThat(Varints.getInt(b, pos, b.length)).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void getInt_negativeLong_throws() {
    byte[] b = new byte[Varints.MAX_BYTES];
    int end = Varints.put(b, 0, -1);
    assertThatThrownBy(() -> Varints.getInt(b, new int[] {0}, end))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("out of int range");
  }

  @Test
  void getIntAtAndEndOf_intBoundaries_roundTrip() {
    for (int v : new int[] {0, 1, 127, 128, 16_383, 16_384, 1 << 21, 1 << 28, Integer.MAX_VALUE}) {
      byte[] b = new byte[8];
      int end = Varints.put(b, 2, v);
      assertThat(Varints.getIntAt(b, 2, b.length)).as("value %d", v).isEqualTo(v);
      assertThat(Varints.endOf(b, 2, b.length)).isEqualTo(end);
    }
  }

  @Test
  void getIntAt_truncated_throwsNamingTheOffset() {
    byte[] b = {0x01, (byte) 0xff, (byte) 0xff};
    assertThatThrownBy(() -> Varints.getIntAt(b, 1, b.length))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("truncated varint (limit 3) at offset 1");
    assertThatThrownBy(() -> Varints.endOf(b, 1, b.length))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("truncated varint (limit 3) at offset 1");
  }

  @Test
  void getIntAt_aboveIntRangeOrSixBytes_throws() {
    byte[] b = new byte[Varints.MAX_BYTES];
    Varints.put(b, 0, 1L << 31);
    assertThatThrownBy(() -> Varints.getIntAt(b, 0, b.length))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("out of int range at offset 0");
    Varints.put(b, 0, 1L << 35);
    assertThatThrownBy(() -> Varints.getIntAt(b, 0, b.length))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("longer than 5 bytes at offset 0");
  }

  @Test
  void endOf_elevenBytes_throwsTooLong() {
    byte[] b = new byte[16];
    java.util.Arrays.fill(b, (byte) 0x80);
    assertThatThrownBy(() -> Varints.endOf(b, 0, b.length))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("longer than 10 bytes at offset 0");
  }

  private static String encode(long v) {
    byte[] b = new byte[Varints.MAX_BYTES];
    int end = Varints.put(b, 0, v);
    return HexFormat.of().formatHex(b, 0, end);
  }
}
