package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RespCommandStatsTest {
  @Test
  void code_firstWordWithinRedisLimit_elseErr() {
    assertThat(RespCommandStats.code("ERR syntax error")).isEqualTo("ERR");
    assertThat(RespCommandStats.code("WRONGPASS invalid username-password pair")).isEqualTo("WRONGPASS");
    assertThat(RespCommandStats.code("EXECABORT Transaction discarded")).isEqualTo("EXECABORT");
    // Redis looks for the space in the first 32 bytes of "-CODE ...": a 30-byte code is the longest.
    assertThat(RespCommandStats.code("A".repeat(30) + " x")).isEqualTo("A".repeat(30));
    assertThat(RespCommandStats.code("A".repeat(31) + " x")).isEqualTo("ERR");
    assertThat(RespCommandStats.code("NOSPACE")).isEqualTo("ERR");
  }

  @Test
  void errorReply_keepsAtMost128Codes_butCountsEveryReply() {
    RespCommandStats stats = new RespCommandStats(List.of());
    List<String> codes = new ArrayList<>();
    for (int i = 0; i < RespCommandStats.MAX_ERROR_CODES + 10; i++) {
      codes.add("E" + i);
      stats.errorReply(new RespMessage.ErrorReply("E" + i + " text"));
    }
    assertThat(stats.totalErrorReplies()).isEqualTo(RespCommandStats.MAX_ERROR_CODES + 10);
    assertThat(stats.errorStats().lines()).hasSize(RespCommandStats.MAX_ERROR_CODES);
    stats.reset();
    assertThat(stats.errorStats()).isEmpty();
    assertThat(stats.totalErrorReplies()).isZero();
  }
}
