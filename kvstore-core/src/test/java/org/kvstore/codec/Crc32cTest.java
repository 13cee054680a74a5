package org.kvstore.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {
  private static final byte[] CHECK = "123456789".getBytes(StandardCharsets.US_ASCII);

  @Test
  void of_standardCheckInput_givesTheCastagnoliCheckValue() {
    assertThat(Crc32c.of(CHECK, 0, CHECK.length)).isEqualTo(0xE3069283);
  }

  @Test
  void of_emptyRange_isZero() {
    assertThat(Crc32c.of(CHECK, 4, 0)).isZero();
  }

  @Test
  void of_subRange_coversOnlyThatRange() {
    assertThat(Crc32c.of(CHECK, 2, 3)).isEqualTo(reference(new byte[] {'3', '4', '5'}));
  }

  @Test
  void of_leadingOrTrailingByte_equalsTheConcatenation() {
    assertThat(Crc32c.of((byte) '1', CHECK, 1, 8)).isEqualTo(0xE3069283);
    assertThat(Crc32c.of(CHECK, 0, 8, (byte) '9')).isEqualTo(0xE3069283);
  }

  @Test
  void of_repeatedCalls_doNotCarryState() {
    int first = Crc32c.of(CHECK, 0, 4);
    Crc32c.of(CHECK, 4, 5);
    assertThat(Crc32c.of(CHECK, 0, 4)).isEqualTo(first);
  }

  @Test
  void mask_knownValues_matchLevelDb() {
    // leveldb crc32c_test.cc: Mask(crc) differs from crc, and masking twice differs again.
    int crc = Crc32c.of(CHECK, 0, CHECK.length);
    assertThat(Crc32c.mask(crc)).isNotEqualTo(crc);
    assertThat(Crc32c.mask(Crc32c.mask(crc))).isNotEqualTo(crc);
    assertThat(Crc32c.mask(0)).isEqualTo(0xa282ead8);
    assertThat(Crc32c.mask(1)).isEqualTo((1 << 17) + 0xa282ead8);
  }

  @Test
  void unmask_maskedValues_givesTheCrcBack() {
    for (int crc : new int[] {0, 1, -1, 0xE3069283, Integer.MIN_VALUE, 0x7fffffff}) {
      assertThat(Crc32c.unmask(Crc32c.mask(crc))).isEqualTo(crc);
      assertThat(Crc32c.unmask(Crc32c.mask(Crc32c.mask(crc)))).isEqualTo(Crc32c.mask(crc));
    }
  }

  private static int reference(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return (int) c.getValue();
  }
}
