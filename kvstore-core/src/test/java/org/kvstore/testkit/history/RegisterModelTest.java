package org.kvstore.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.kvstore.testkit.history.RegisterModel.Register;

class RegisterModelTest {
  private final RegisterModel model = new RegisterModel();

  private static Operation ok(Command command, String argument, Object result) {
    return Operation.ok(0, 0, "k", command, argument, 0, 1, result);
  }

  private static Operation info(Command command, String argument) {
    return Operation.info(0, 0, "k", command, argument, 0);
  }

  @Test
  void parseRedisInteger_acceptsOnlyCanonicalLongs() {
    assertThat(RegisterModel.parseRedisInteger("0")).isZero();
    assertThat(RegisterModel.parseRedisInteger("-17")).isEqualTo(-17L);
    assertThat(RegisterModel.parseRedisInteger("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
    assertThat(RegisterModel.parseRedisInteger("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
    for (String bad : new String[] {"", "-", "-0", "007", "+1", " 1", "1 ", "1a", "v1", "9223372036854775808"}) {
      assertThat(RegisterModel.parseRedisInteger(bad)).as(bad).isNull();
    }
  }

  @Test
  void step_incr_onMissingNumberTextAndMax() {
    assertThat(model.step(new Register(null), ok(Command.INCR, null, 1L))).isEqualTo(new Register("1"));
    assertThat(model.step(new Register("41"), ok(Command.INCR, null, 42L))).isEqualTo(new Register("42"));
    assertThat(model.step(new Register("41"), ok(Command.INCR, null, 41L))).isNull();
    Register text = new Register("v1");
    assertThat(model.step(text, ok(Command.INCR, null, Operation.ErrorReply.NOT_AN_INTEGER))).isEqualTo(text);
    Register max = new Register(Long.toString(Long.MAX_VALUE));
    assertThat(model.step(max, ok(Command.INCR, null, Operation.ErrorReply.NOT_AN_INTEGER))).isEqualTo(max);
  }

  @Test
  void step_indeterminateOps_applyTheirEffectWithoutAResult() {
    assertThat(model.step(new Register(null), info(Command.SET_NX, "a"))).isEqualTo(new Register("a"));
    assertThat(model.step(new Register("b"), info(Command.SET_NX, "a"))).isEqualTo(new Register("b"));
    assertThat(model.step(new Register(null), info(Command.SET_XX, "a"))).isEqualTo(new Register(null));
    assertThat(model.step(new Register("7"), info(Command.INCR, null))).isEqualTo(new Register("8"));
    assertThat(model.step(new Register("ab"), info(Command.APPEND, "c"))).isEqualTo(new Register("abc"));
    assertThat(model.step(new Register("ab"), info(Command.DEL, null))).isEqualTo(new Register(null));
  }

  @Test
  void step_wrongResults_rejected() {
    assertThat(model.step(new Register("a"), ok(Command.GET, null, "b"))).isNull();
    assertThat(model.step(new Register("a"), ok(Command.SET_NX, "b", true))).isNull();
    assertThat(model.step(new Register(null), ok(Command.SET_XX, "b", true))).isNull();
    assertThat(model.step(new Register(null), ok(Command.DEL, null, 1L))).isNull();
    assertThat(model.step(new Register("é"), ok(Command.APPEND, "x", 2L))).isNull(); // 3 bytes in UTF-8
    assertThat(model.step(new Register("é"), ok(Command.APPEND, "x", 3L))).isEqualTo(new Register("éx"));
  }
}
