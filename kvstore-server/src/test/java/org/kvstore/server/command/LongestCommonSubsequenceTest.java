package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** LCS as Redis computes it (the expected runs are Redis 7.0.15's answers). */
class LongestCommonSubsequenceTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void of_redisExample_sequenceAndRunsFromTheEnd() {
    LongestCommonSubsequence lcs = LongestCommonSubsequence.of(b("ohmytext"), b("mynewtext"), 0, 1 << 20);
    assertThat(new String(lcs.sequence(), StandardCharsets.UTF_8)).isEqualTo("mytext");
    assertThat(lcs.length()).isEqualTo(6);
    assertThat(lcs.matches()).containsExactly(
        new LongestCommonSubsequence.Match(4, 7, 5, 8),
        new LongestCommonSubsequence.Match(2, 3, 0, 1));
    assertThat(lcs.matches().get(0).length()).isEqualTo(4);
  }

  @Test
  void of_minMatchLength_leavesShortRunsOut() {
    LongestCommonSubsequence lcs = LongestCommonSubsequence.of(b("ohmytext"), b("mynewtext"), 4, 1 << 20);
    assertThat(lcs.matches()).containsExactly(new LongestCommonSubsequence.Match(4, 7, 5, 8));
    assertThat(lcs.length()).isEqualTo(6);
  }

  @Test
  void of_emptyOrDisjoint_isEmpty() {
    assertThat(LongestCommonSubsequence.of(b(""), b("abc"), 0, 1 << 20).sequence()).isEmpty();
    LongestCommonSubsequence none = LongestCommonSubsequence.of(b("abc"), b("xyz"), 0, 1 << 20);
    assertThat(none.sequence()).isEmpty();
    assertThat(none.matches()).isEqualTo(List.of());
  }

  @Test
  void of_tableOverTheLimit_throwsRedisError() {
    // (1000 + 1)^2 cells of 4 bytes: about 4 MB, over a 1 MiB limit.
    byte[] a = new byte[1000];
    assertThatThrownBy(() -> LongestCommonSubsequence.of(a, a, 0, 1 << 20))
        .isInstanceOf(CommandException.class)
        .hasMessage("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  }
}
