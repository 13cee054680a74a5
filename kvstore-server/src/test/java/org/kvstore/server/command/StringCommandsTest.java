package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kvstore.Table;

/**
 * The string commands' semantics called as a non-RESP front end would: byte arrays and typed
 * options in, plain results or typed exceptions out.
 */
class StringCommandsTest {
  @RegisterExtension final ScratchTable scratch = new ScratchTable();
  private Table t;
  private final PutWriter writer = new PutWriter();
  private final StringCommands strings = new StringCommands(writer, 16);

  @BeforeEach
  void table() {
    t = scratch.table();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void set_plain_goesThroughThePutWriter() {
    assertThat(strings.set(t, b("k"), b("v"), SetOptions.PLAIN).written()).isTrue();
    assertThat(strings.get(t, b("k"))).isEqualTo(b("v"));
    assertThat(writer.puts()).isEqualTo(1);
    assertThat(writer.batches()).isEqualTo(1);
  }

  @Test
  void set_conditions_writeOnlyWhenTheyHold_andReturnTheOldValue() {
    SetOptions nxGet = new SetOptions(SetOptions.Condition.IF_ABSENT, true);
    SetOptions xx = new SetOptions(SetOptions.Condition.IF_PRESENT, false);
    assertThat(strings.set(t, b("k"), b("1"), xx).written()).isFalse();
    SetResult first = strings.set(t, b("k"), b("1"), nxGet);
    assertThat(first.written()).isTrue();
    assertThat(first.old()).isNull();
    SetResult second = strings.set(t, b("k"), b("2"), nxGet);
    assertThat(second.written()).isFalse();
    assertThat(second.old()).isEqualTo(b("1"));
    assertThat(strings.set(t, b("k"), b("3"), xx).written()).isTrue();
    assertThat(strings.get(t, b("k"))).isEqualTo(b("3"));
  }

  @Test
  void incrementBy_notAnInteger_throwsCommandException() {
    strings.set(t, b("n"), b("x"), SetOptions.PLAIN);
    assertThatThrownBy(() -> strings.incrementBy(t, b("n"), 1))
        .isInstanceOf(CommandException.class)
        .satisfies(e -> {
          assertThat(((CommandException) e).code()).isEqualTo("ERR");
          assertThat(((CommandException) e).detail()).isEqualTo("value is not an integer or out of range");
        });
  }

  @Test
  void incrementBy_overflow_throwsCommandException() {
    strings.set(t, b("n"), b(Long.toString(Long.MAX_VALUE)), SetOptions.PLAIN);
    assertThatThrownBy(() -> strings.incrementBy(t, b("n"), 1)).isInstanceOf(CommandException.class);
  }

  @Test
  void append_pastTheSizeLimit_throwsCommandException() {
    assertThat(strings.append(t, b("a"), b("0123456789"))).isEqualTo(10);
    assertThatThrownBy(() -> strings.append(t, b("a"), b("0123456789")))
        .isInstanceOf(CommandException.class);
  }

  @Test
  void multiGetDeleteAndRange_plainResults() {
    strings.multiSet(t, new byte[][] {b("a"), b("b")}, new byte[][] {b("1"), b("2")});
    byte[][] values = new byte[3][];
    strings.multiGet(t, new byte[][] {b("a"), b("b"), b("c")}, values);
    assertThat(values[0]).isEqualTo(b("1"));
    assertThat(values[1]).isEqualTo(b("2"));
    assertThat(values[2]).isNull();
    assertThat(strings.getRange(t, b("a"), 0, -1)).isEqualTo(b("1"));
    assertThat(strings.delete(t, List.of(b("a"), b("a"), b("c")))).isEqualTo(1);
    assertThat(strings.countExisting(t, List.of(b("a"), b("b"), b("b")))).isEqualTo(2);
  }

  @Test
  void setRange_offsetOverflowingTheSizeCheck_throwsMaxSizeError() {
    // Regression: offset + length overflowed to a negative total, which passed the size check and
    // failed with ArrayIndexOutOfBoundsException.
    strings.set(t, b("k"), b("v"), SetOptions.PLAIN);
    for (String key : new String[] {"k", "missing"}) {
      assertThatThrownBy(() -> strings.setRange(t, b(key), Long.MAX_VALUE, b("x")))
          .isInstanceOf(CommandException.class)
          .hasMessage("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    }
    assertThatThrownBy(() -> strings.setRange(t, b("k"), 16, b("x")))
        .hasMessage("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    assertThat(strings.get(t, b("missing"))).isNull();
  }

  @Test
  void setRange_emptyPatch_createsNothingAndReturnsTheLength() {
    assertThat(strings.setRange(t, b("missing"), Long.MAX_VALUE, new byte[0])).isZero();
    assertThat(strings.get(t, b("missing"))).isNull();
    strings.set(t, b("k"), b("abc"), SetOptions.PLAIN);
    assertThat(strings.setRange(t, b("k"), 100, new byte[0])).isEqualTo(3);
    assertThat(strings.get(t, b("k"))).isEqualTo(b("abc"));
  }

  @Test
  void setRange_pastTheEnd_padsWithZeroBytes() {
    assertThat(strings.setRange(t, b("k"), 3, b("ab"))).isEqualTo(5);
    assertThat(strings.get(t, b("k"))).containsExactly(0, 0, 0, 'a', 'b');
    assertThat(strings.setRange(t, b("k"), 1, b("X"))).isEqualTo(5);
    assertThat(strings.get(t, b("k"))).containsExactly(0, 'X', 0, 'a', 'b');
    assertThatThrownBy(() -> strings.setRange(t, b("k"), -1, b("x"))).hasMessage("ERR offset is out of range");
  }

  @Test
  void getRange_edgeCases_asRedis() {
    strings.set(t, b("k"), b("Hello World"), SetOptions.PLAIN);
    assertThat(strings.getRange(t, b("k"), 0, 3)).isEqualTo(b("Hell"));
    assertThat(strings.getRange(t, b("k"), -4, -1)).isEqualTo(b("orld"));
    assertThat(strings.getRange(t, b("k"), 5, 3)).isEmpty();
    assertThat(strings.getRange(t, b("k"), 5, 5000)).isEqualTo(b(" World"));
    assertThat(strings.getRange(t, b("k"), -5000, 10000)).isEqualTo(b("Hello World"));
    assertThat(strings.getRange(t, b("k"), 0, -100)).isEqualTo(b("H"));
    assertThat(strings.getRange(t, b("k"), -1, -3)).isEmpty();
    assertThat(strings.getRange(t, b("k"), Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(b("Hello World"));
    assertThat(strings.getRange(t, b("missing"), 0, 1)).isEmpty();
  }

  @Test
  void incrementByFloat_infinity_throwsNaNOrInfinityError() {
    strings.set(t, b("f"), b("1"), SetOptions.PLAIN);
    assertThatThrownBy(() -> strings.incrementByFloat(t, b("f"), RedisNumbers.parseFloat(b("+inf"))))
        .isInstanceOf(CommandException.class)
        .hasMessage("ERR increment would produce NaN or Infinity");
    strings.set(t, b("f"), b("inf"), SetOptions.PLAIN);
    assertThatThrownBy(() -> strings.incrementByFloat(t, b("f"), RedisNumbers.parseFloat(b("1"))))
        .hasMessage("ERR increment would produce NaN or Infinity");
    strings.set(t, b("f"), b("1 "), SetOptions.PLAIN);
    assertThatThrownBy(() -> strings.incrementByFloat(t, b("f"), RedisNumbers.parseFloat(b("1"))))
        .hasMessage("ERR value is not a valid float");
  }

  @Test
  void incrementByFloat_storesRedisText() {
    assertThat(strings.incrementByFloat(t, b("f"), RedisNumbers.parseFloat(b("10.5")))).isEqualTo(b("10.5"));
    assertThat(strings.incrementByFloat(t, b("f"), RedisNumbers.parseFloat(b("0.1")))).isEqualTo(b("10.6"));
    // Redis' long double: 10.6 is not exact, and 17 decimals show it.
    assertThat(strings.incrementByFloat(t, b("f"), RedisNumbers.parseFloat(b("3.0e3"))))
        .isEqualTo(b("3010.60000000000000009"));
    assertThat(strings.get(t, b("f"))).isEqualTo(b("3010.60000000000000009"));
  }

  @Test
  void longestCommonSubsequence_missingKeysAreEmpty() {
    StringCommands strings = new StringCommands(writer, 1 << 20);
    strings.set(t, b("a"), b("ohmytext"), SetOptions.PLAIN);
    strings.set(t, b("b"), b("mynewtext"), SetOptions.PLAIN);
    assertThat(strings.longestCommonSubsequence(t, b("a"), b("b"), 0).sequence()).isEqualTo(b("mytext"));
    assertThat(strings.longestCommonSubsequence(t, b("a"), b("none"), 0).length()).isZero();
  }
}
