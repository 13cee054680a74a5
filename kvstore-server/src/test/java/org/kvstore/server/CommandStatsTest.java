package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.util.SafeEncoder;

/**
 * {@code INFO commandstats}, {@code INFO errorstats}, {@code total_error_replies} and
 * {@code CONFIG RESETSTAT}, in the scenarios of Redis' tests/unit/info.tcl (calls, rejected calls
 * and failed calls as Redis 7 counts them). Each test has its own server: the counters are
 * server-wide.
 */
class CommandStatsTest {
  private static final Pattern CMDSTAT = Pattern.compile(
      "cmdstat_([a-z.|]+):calls=(\\d+),usec=(\\d+),usec_per_call=(\\d+\\.\\d\\d),rejected_calls=(\\d+),failed_calls=(\\d+)");

  @TempDir Path dir;
  private KVStoreServer server;
  private Jedis j;

  @BeforeEach
  void start() {
    server = TestServers.start(dir);
    j = new Jedis("127.0.0.1", server.respPort());
    j.configResetStat();
  }

  @AfterEach
  void stop() {
    j.close();
    server.close();
  }

  private Object send(String... args) {
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    return j.sendCommand(() -> SafeEncoder.encode(args[0]), rest);
  }

  /** {@code name -> "calls=..,rejected_calls=..,failed_calls=.."} (without the times). */
  private Map<String, String> cmdstats() {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : j.info("commandstats").split("\r\n")) {
      Matcher m = CMDSTAT.matcher(line);
      if (m.matches()) {
        long calls = Long.parseLong(m.group(2));
        long usec = Long.parseLong(m.group(3));
        double perCall = Double.parseDouble(m.group(4));
        assertThat(perCall).as(line).isCloseTo(calls == 0 ? 0 : (double) usec / calls, Offset.offset(0.01));
        out.put(m.group(1), "calls=" + m.group(2) + ",rejected_calls=" + m.group(5) + ",failed_calls=" + m.group(6));
      } else {
        assertThat(line).as("a line of INFO commandstats").startsWith("#");
      }
    }
    return out;
  }

  private String errorstat(String code) {
    for (String line : j.info("errorstats").split("\r\n")) {
      if (line.startsWith("errorstat_" + code + ":")) {
        return line.substring(line.indexOf(':') + 1);
      }
    }
    return "";
  }

  private long totalErrorReplies() {
    for (String line : j.info("stats").split("\r\n")) {
      if (line.startsWith("total_error_replies:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1));
      }
    }
    throw new AssertionError("no total_error_replies in INFO stats");
  }

  @Test
  void rejectedCall_wrongArity_countsRejectedNotCalls_thenPlainSetsCountCalls() {
    assertThatThrownBy(() -> send("SET", "k")).hasMessage("ERR wrong number of arguments for 'set' command");
    assertThat(errorstat("ERR")).isEqualTo("count=1");
    assertThat(cmdstats()).containsEntry("set", "calls=0,rejected_calls=1,failed_calls=0");
    j.set("k1", "v1"); // the connection's first write: run alone
    j.set("k2", "v2"); // a plain SET through the event loop's coalescer
    Pipeline p = j.pipelined();
    for (int i = 0; i < 50; i++) {
      p.set("p" + i, "v");
    }
    p.sync();
    assertThat(cmdstats()).containsEntry("set", "calls=52,rejected_calls=1,failed_calls=0");
    assertThat(totalErrorReplies()).isEqualTo(1);
  }

  @Test
  void pipelinedGets_eachCounted() {
    j.set("g", "v");
    Pipeline p = j.pipelined();
    for (int i = 0; i < 100; i++) {
      p.get("g");
    }
    p.sync();
    j.get("g");
    assertThat(cmdstats()).containsEntry("get", "calls=101,rejected_calls=0,failed_calls=0");
  }

  @Test
  void failedCall_countsFailedAndTheErrorCode() {
    j.set("text", "abc");
    assertThatThrownBy(() -> j.incr("text")).hasMessage("ERR value is not an integer or out of range");
    assertThatThrownBy(() -> send("SETBIT", "text", "-1", "1"))
        .hasMessage("ERR bit offset is not an integer or out of range");
    assertThat(cmdstats())
        .containsEntry("incr", "calls=1,rejected_calls=0,failed_calls=1")
        .containsEntry("setbit", "calls=1,rejected_calls=0,failed_calls=1");
    assertThat(errorstat("ERR")).isEqualTo("count=2");
    assertThat(totalErrorReplies()).isEqualTo(2);
  }

  @Test
  void containerCommands_countedBySubcommand() {
    send("CLIENT", "SETNAME", "stats");
    send("CLIENT", "GETNAME");
    send("COMMAND", "COUNT");
    assertThatThrownBy(() -> send("CLIENT", "NOSUCH")).hasMessageStartingWith("ERR unknown subcommand");
    assertThatThrownBy(() -> send("CONFIG")).hasMessage("ERR wrong number of arguments for 'config' command");
    assertThatThrownBy(() -> send("CLIENT", "SETNAME"))
        .hasMessage("ERR wrong number of arguments for 'client|setname' command");
    assertThat(cmdstats())
        .containsEntry("client|setname", "calls=1,rejected_calls=1,failed_calls=0")
        .containsEntry("client|getname", "calls=1,rejected_calls=0,failed_calls=0")
        .containsEntry("command|count", "calls=1,rejected_calls=0,failed_calls=0")
        .containsEntry("config", "calls=0,rejected_calls=1,failed_calls=0")
        .doesNotContainKeys("client", "client|nosuch", "command");
    assertThat(errorstat("ERR")).isEqualTo("count=3");
  }

  @Test
  void unknownCommand_countsOnlyTheError() {
    assertThatThrownBy(() -> send("ASDF")).hasMessageStartingWith("ERR unknown command");
    assertThat(errorstat("ERR")).isEqualTo("count=1");
    assertThat(totalErrorReplies()).isEqualTo(1);
    assertThat(cmdstats()).doesNotContainKey("asdf");
  }

  @Test
  void failedCallWithinExec_isTheQueuedCommands_notExec() {
    j.set("text", "abc");
    send("MULTI");
    send("SET", "a", "b");
    send("INCR", "text");
    Object replies = send("EXEC");
    assertThat(replies).asList().hasSize(2);
    assertThat(cmdstats())
        .containsEntry("set", "calls=2,rejected_calls=0,failed_calls=0")
        .containsEntry("incr", "calls=1,rejected_calls=0,failed_calls=1")
        .containsEntry("exec", "calls=1,rejected_calls=0,failed_calls=0");
    assertThat(errorstat("ERR")).isEqualTo("count=1");
    // EXEC's own error is pinned to EXEC.
    assertThatThrownBy(() -> send("EXEC")).hasMessage("ERR EXEC without MULTI");
    assertThat(cmdstats()).containsEntry("exec", "calls=2,rejected_calls=0,failed_calls=1");
    assertThat(errorstat("ERR")).isEqualTo("count=2");
    assertThat(totalErrorReplies()).isEqualTo(2);
  }

  @Test
  void rejectedCallWithinMulti_execAbortCounted() {
    send("MULTI");
    assertThatThrownBy(() -> send("SET")).hasMessage("ERR wrong number of arguments for 'set' command");
    assertThatThrownBy(() -> send("EXEC")).hasMessageStartingWith("EXECABORT");
    assertThat(errorstat("ERR")).isEqualTo("count=1");
    assertThat(errorstat("EXECABORT")).isEqualTo("count=1");
    assertThat(totalErrorReplies()).isEqualTo(2);
    assertThat(cmdstats())
        .containsEntry("set", "calls=0,rejected_calls=1,failed_calls=0")
        .containsEntry("multi", "calls=1,rejected_calls=0,failed_calls=0")
        .containsEntry("exec", "calls=1,rejected_calls=0,failed_calls=1");
  }

  @Test
  void noAuth_rejectedAndCountedByItsCode() {
    j.configSet("requirepass", "secret");
    try (Jedis other = new Jedis("127.0.0.1", server.respPort())) {
      assertThatThrownBy(() -> other.get("k")).hasMessage("NOAUTH Authentication required.");
      assertThatThrownBy(() -> other.auth("wrong")).hasMessageStartingWith("WRONGPASS");
      other.auth("secret");
      assertThat(errorstat("NOAUTH")).isEqualTo("count=1");
      assertThat(errorstat("WRONGPASS")).isEqualTo("count=1");
      assertThat(cmdstats())
          .containsEntry("get", "calls=0,rejected_calls=1,failed_calls=0")
          .containsEntry("auth", "calls=2,rejected_calls=0,failed_calls=1");
    }
  }

  @Test
  void configResetStat_clearsEveryCounter_andInfoShowsCommandstatsOnlyWhenAsked() {
    j.set("text", "abc");
    assertThatThrownBy(() -> j.incr("text")).hasMessageStartingWith("ERR");
    assertThat(j.info()).contains("# Errorstats\r\nerrorstat_ERR:count=").doesNotContain("cmdstat_");
    assertThat(j.info("all")).contains("# Commandstats\r\ncmdstat_").contains("errorstat_ERR");
    assertThat(j.info("everything")).contains("cmdstat_incr:");
    assertThat(j.configResetStat()).isEqualTo("OK");
    assertThat(errorstat("ERR")).isEmpty();
    assertThat(totalErrorReplies()).isZero();
    // Only the RESETSTAT itself and the INFOs since.
    assertThat(cmdstats().keySet()).containsOnly("config|resetstat", "info");
    assertThatThrownBy(() -> send("CONFIG", "RESETSTAT", "x"))
        .hasMessage("ERR wrong number of arguments for 'config|resetstat' command");
  }
}
