package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvstore.testkit.Seeds;

/** The cached lower-case command names equal the uncached ones, whatever the case and bytes. */
class CommandNamesTest {
  private static String expected(byte[] raw) {
    return new String(raw, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
  }

  @Test
  void anyCaseOfANameGivesItsLowerCase_andTheCachedStringIsReused() {
    byte[] upper = "GET".getBytes(StandardCharsets.US_ASCII);
    String first = CommandNames.lowerCase(upper);
    assertThat(first).isEqualTo("get");
    assertThat(CommandNames.lowerCase("gEt".getBytes(StandardCharsets.US_ASCII))).isSameAs(first);
    assertThat(CommandNames.lowerCase("GETSET".getBytes(StandardCharsets.US_ASCII))).isEqualTo("getset");
  }

  @Test
  void randomNames_includingNonAsciiBytesAndCollisions_matchTheUncachedResult() {
    long seed = Seeds.seed("CommandNamesTest");
    Random rnd = new Random(seed);
    byte[] alphabet = "aAbBzZ_.09\u00c0\u00e0\u00de\u00fe".getBytes(StandardCharsets.ISO_8859_1);
    for (int i = 0; i < 200_000; i++) {
      byte[] raw = new byte[1 + rnd.nextInt(rnd.nextInt(10) == 0 ? 40 : 4)];
      for (int j = 0; j < raw.length; j++) {
        raw[j] = rnd.nextInt(20) == 0 ? (byte) rnd.nextInt(256) : alphabet[rnd.nextInt(alphabet.length)];
      }
      assertThat(CommandNames.lowerCase(raw)).as("seed %d", seed).isEqualTo(expected(raw));
    }
  }
}
