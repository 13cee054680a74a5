package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * INCRBYFLOAT's numbers against what Redis (7.0.15 on x86-64, its {@code long double}) answered to
 * {@code INCRBYFLOAT key <a>} on a key holding {@code <b>}.
 */
class LongDoubleTest {
  private static LongDouble parse(String s) {
    return LongDouble.parse(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  @ParameterizedTest
  @CsvSource({
      "0, 10.5, 10.5",
      "10.5, 0.1, 10.6",
      "0, 3.0e3, 3000",
      "0, 5.0e3, 5000",
      "0, 1e-20, 0",
      "1, 1e-17, 1.00000000000000001",
      "0, 1.23456789012345678901, 1.23456789012345679",
      "0, 12345678901234567890123, 12345678901234567889920",
      "0, 1e30, 1000000000000000000024696061952",
      "1, -1.1, -0.1",
      "17179869184, 1.5, 17179869185.5",
      "17179869184, 17179869184, 34359738368",
      "0, 0x10, 16",
      "0, 0x1p-3, 0.125",
      "0, 0x1.8p3, 12",
      "0, .5, 0.5",
      "0, 5., 5",
      "0, +1.5, 1.5",
      "0, 1E2, 100",
      "0, 1e-4940, 0",
      "10.6, 3.0e3, 3010.60000000000000009",
      "0.024390243902439025, -0.024390243902439025, 0",
      "0, -0, 0",
  })
  void add_formatsAsRedis(String value, String by, String expected) {
    assertThat(parse(value).add(parse(by)).toRedisString()).isEqualTo(expected);
  }

  @Test
  void add_largeValues_keepsEveryIntegerDigit() {
    String sum = parse("1e308").add(parse("1e308")).toRedisString();
    assertThat(sum).startsWith("1999999999999999999933717593116912913211").hasSize(309);
    assertThat(parse("0").add(parse("1e4931")).toRedisString())
        .startsWith("100000000000000000000601894938").hasSize(4932);
  }

  @Test
  void add_infinity_isInfinite() {
    assertThat(parse("0").add(parse("inf")).isInfinite()).isTrue();
    assertThat(parse("-INF").add(parse("1")).isInfinite()).isTrue();
    assertThat(parse("Infinity").add(parse("-inf")).isInfinite()).isTrue();
    assertThat(parse("1.18e4932").add(parse("1.18e4932")).isInfinite()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "nan", "NaN", "1e5000", "1e-5000", "1.2e4932", "0x", "1e", ".", "", " 1", "1 ", "1\u00002",
      "abc", "--1", "1.2.3", "0x1p", "+", "e5"})
  void parse_notAFloat_throwsRedisError(String s) {
    assertThatThrownBy(() -> parse(s))
        .isInstanceOf(CommandException.class)
        .hasMessage("ERR value is not a valid float");
  }

  @Test
  void parse_overMaxChars_throws() {
    assertThatThrownBy(() -> parse("1".repeat(5 * 1024))).isInstanceOf(CommandException.class);
  }
}
