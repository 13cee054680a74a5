package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kvstore.Table;
import org.kvstore.server.command.BitmapCommands.Range;
import org.kvstore.server.command.BitmapCommands.Unit;

/** The bitmap commands' semantics on byte arrays; expected answers are Redis 7's. */
class BitmapCommandsTest {
  @RegisterExtension final ScratchTable scratch = new ScratchTable();
  private Table t;
  /** Values up to 16 bytes: bit offsets up to 127. */
  private final BitmapCommands bitmaps = new BitmapCommands(16);
  private final StringCommands strings = new StringCommands(new PutWriter(), 16);

  @BeforeEach
  void table() {
    t = scratch.table();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private void set(String key, byte... value) {
    strings.set(t, b(key), value, SetOptions.PLAIN);
  }

  @Test
  void setBit_missingKey_padsWithZeroBytesAndReturnsTheOldBit() {
    assertThat(bitmaps.setBit(t, b("k"), 17, 1)).isZero();
    assertThat(strings.get(t, b("k"))).containsExactly(0, 0, 0x40);
    assertThat(bitmaps.setBit(t, b("k"), 17, 1)).isEqualTo(1);
    assertThat(bitmaps.setBit(t, b("k"), 17, 0)).isEqualTo(1);
    assertThat(strings.get(t, b("k"))).containsExactly(0, 0, 0);
    assertThat(bitmaps.getBit(t, b("k"), 17)).isZero();
  }

  @Test
  void setBit_clearingPastTheEnd_stillGrowsTheValue() {
    set("k", (byte) 0xFF);
    assertThat(bitmaps.setBit(t, b("k"), 15, 0)).isZero();
    assertThat(strings.get(t, b("k"))).containsExactly(0xFF, 0);
  }

  @Test
  void setBit_badOffsetOrBit_throwsRedisErrors() {
    assertThatThrownBy(() -> bitmaps.setBit(t, b("k"), -1, 1)).hasMessage(BitmapCommands.BAD_BIT_OFFSET);
    assertThatThrownBy(() -> bitmaps.setBit(t, b("k"), 128, 1)).hasMessage(BitmapCommands.BAD_BIT_OFFSET);
    assertThatThrownBy(() -> bitmaps.setBit(t, b("k"), 1, 2)).hasMessage(BitmapCommands.BAD_BIT);
    assertThat(strings.get(t, b("k"))).isNull();
  }

  @Test
  void bitOffset_parsesStrictlyWithinTheSizeLimit() {
    assertThat(bitmaps.bitOffset(b("127"))).isEqualTo(127);
    for (String bad : new String[] {"128", "-1", "1.5", " 1", "x", "99999999999999999999"}) {
      assertThatThrownBy(() -> bitmaps.bitOffset(b(bad)))
          .as(bad).hasMessage("ERR bit offset is not an integer or out of range");
    }
  }

  @Test
  void getBit_pastTheEndOrMissing_isZero() {
    set("k", (byte) 0x80);
    assertThat(bitmaps.getBit(t, b("k"), 0)).isEqualTo(1);
    assertThat(bitmaps.getBit(t, b("k"), 1)).isZero();
    assertThat(bitmaps.getBit(t, b("k"), 100)).isZero();
    assertThat(bitmaps.getBit(t, b("none"), 0)).isZero();
  }

  @Test
  void bitCount_rangesInBytesAndBits() {
    set("k", b("foobar"));
    assertThat(bitmaps.bitCount(t, b("k"), null)).isEqualTo(26);
    assertThat(bitmaps.bitCount(t, b("k"), new Range(0, 0, Unit.BYTE, true))).isEqualTo(4);
    assertThat(bitmaps.bitCount(t, b("k"), new Range(1, 1, Unit.BYTE, true))).isEqualTo(6);
    assertThat(bitmaps.bitCount(t, b("k"), new Range(1, 1, Unit.BIT, true))).isEqualTo(1);
    assertThat(bitmaps.bitCount(t, b("k"), new Range(5, 30, Unit.BIT, true))).isEqualTo(17);
    assertThat(bitmaps.bitCount(t, b("k"), new Range(-2, -1, Unit.BYTE, true))).isEqualTo(7);
    // Two negative positions in the wrong order: empty before clamping.
    assertThat(bitmaps.bitCount(t, b("k"), new Range(-1, -100, Unit.BYTE, true))).isZero();
    // Clamped: -100 becomes 0, and 0..0 is the first byte.
    assertThat(bitmaps.bitCount(t, b("k"), new Range(-100, -6, Unit.BYTE, true))).isEqualTo(4);
    assertThat(bitmaps.bitCount(t, b("k"), new Range(3, 2, Unit.BYTE, true))).isZero();
    assertThat(bitmaps.bitCount(t, b("none"), new Range(0, -1, Unit.BIT, true))).isZero();
  }

  @Test
  void bitPos_findsSetAndClearBits() {
    set("k", (byte) 0xFF, (byte) 0xF0, (byte) 0x00);
    assertThat(bitmaps.bitPos(t, b("k"), 0, null)).isEqualTo(12);
    assertThat(bitmaps.bitPos(t, b("k"), 1, new Range(2, -1, Unit.BYTE, false))).isEqualTo(-1);
    assertThat(bitmaps.bitPos(t, b("k"), 1, new Range(7, 15, Unit.BIT, true))).isEqualTo(7);
    assertThat(bitmaps.bitPos(t, b("k"), 0, new Range(7, 11, Unit.BIT, true))).isEqualTo(-1);
    assertThat(bitmaps.bitPos(t, b("k"), 0, new Range(7, 12, Unit.BIT, true))).isEqualTo(12);
  }

  @Test
  void bitPos_clearBitInAllOnes_firstBitAfterTheRangeUnlessTheEndWasGiven() {
    set("k", (byte) 0xFF, (byte) 0xFF);
    assertThat(bitmaps.bitPos(t, b("k"), 0, null)).isEqualTo(16);
    assertThat(bitmaps.bitPos(t, b("k"), 0, new Range(1, -1, Unit.BYTE, false))).isEqualTo(16);
    assertThat(bitmaps.bitPos(t, b("k"), 0, new Range(0, -1, Unit.BYTE, true))).isEqualTo(-1);
    assertThat(bitmaps.bitPos(t, b("k"), 0, new Range(0, 0, Unit.BYTE, false))).isEqualTo(8);
  }

  @Test
  void bitPos_missingOrEmpty_asRedis() {
    assertThat(bitmaps.bitPos(t, b("none"), 0, null)).isZero();
    assertThat(bitmaps.bitPos(t, b("none"), 1, null)).isEqualTo(-1);
    set("e");
    assertThat(bitmaps.bitPos(t, b("e"), 0, null)).isEqualTo(-1);
    assertThat(bitmaps.bitCount(t, b("e"), null)).isZero();
  }
}
