package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's redis-cli and redis-benchmark (package redis-tools, installed by .ci/run) against the
 * server. Skipped, with the reason, only when the binaries are absent.
 */
class RedisToolsTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static String port;

  @BeforeAll
  static void start() {
    server = TestServers.start(dir);
    port = Integer.toString(server.respPort());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  record Result(int exit, String out, String err) {}

  static boolean onPath(String binary) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, binary))) {
        return true;
      }
    }
    return false;
  }

  static void assumeInstalled(String binary) {
    Assumptions.assumeTrue(onPath(binary),
        binary + " is not installed: apt-get install redis-tools (.ci/run installs it)");
  }

  static Result run(String stdin, String... cmd) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    if (stdin == null) {
      pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    }
    Process p = pb.start();
    if (stdin != null) {
      p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
      p.getOutputStream().close();
    }
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + String.join(" ", cmd));
    }
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  static Result cli(String stdin, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("redis-cli", "-p", port));
    cmd.addAll(List.of(args));
    return run(stdin, cmd.toArray(String[]::new));
  }

  @Test
  void blinkDbSession_setGetDelGet() throws Exception {
    assumeInstalled("redis-cli");
    assertThat(cli(null, "SET", "user", "Krishna").out()).isEqualTo("OK\n");
    assertThat(cli(null, "SET", "password", "helloworld").out()).isEqualTo("OK\n");
    assertThat(cli(null, "--no-raw", "GET", "user").out()).isEqualTo("\"Krishna\"\n");
    assertThat(cli(null, "--no-raw", "DEL", "user").out()).isEqualTo("(integer) 1\n");
    assertThat(cli(null, "--no-raw", "GET", "user").out()).isEqualTo("(nil)\n");
    assertThat(cli(null, "-n", "1", "-3", "--no-raw", "GET", "missing"))
        .isEqualTo(new Result(0, "(nil)\n", ""));
  }

  @Test
  void interactivePipedSession_withCommandDocs_exitsZero() throws Exception {
    assumeInstalled("redis-cli");
    Result r = cli("set a b\nget a\nhelp get\nquit\n");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).startsWith("OK\nb\n");
  }

  @Test
  void errorExitCode_pipeAndScan() throws Exception {
    assumeInstalled("redis-cli");
    cli(null, "SET", "foo", "bar");
    Result e = cli(null, "-e", "INCR", "foo");
    assertThat(e.exit()).isEqualTo(1);
    assertThat(e.out() + e.err()).contains("ERR value is not an integer or out of range");
    Result pipe = cli("SET p1 v1\r\nSET p2 v2\r\n", "--pipe");
    assertThat(pipe.out()).contains("errors: 0, replies: 2");
    assertThat(cli(null, "--scan", "--pattern", "p*").out().lines().sorted().toList()).containsExactly("p1", "p2");
  }

  /** The string family from redis-cli, as Redis 7 prints it (including LCS IDX's nested arrays). */
  @Test
  void stringFamily_bitsLcsRangesAndStats() throws Exception {
    assumeInstalled("redis-cli");
    String session = String.join("\n",
        "setbit cli:bits 7 1", "getbit cli:bits 7", "bitcount cli:bits", "bitpos cli:bits 1",
        "setbit cli:bits -1 1", "set cli:a ohmytext", "set cli:b mynewtext", "lcs cli:a cli:b",
        "lcs cli:a cli:b idx minmatchlen 4 withmatchlen", "substr cli:a 0 1",
        "setrange cli:a 9223372036854775807 x", "incrbyfloat cli:f 1e-17", "incrbyfloat cli:f inf", "");
    Result r = cli(session, "--no-raw");
    assertThat(r.exit()).as("%s", r).isZero();
    assertThat(r.out()).isEqualTo(String.join("\n",
        "(integer) 0", "(integer) 1", "(integer) 1", "(integer) 7",
        "(error) ERR bit offset is not an integer or out of range", "OK", "OK", "\"mytext\"",
        "1) \"matches\"", "2) 1) 1) 1) (integer) 4", "         2) (integer) 7",
        "      2) 1) (integer) 5", "         2) (integer) 8", "      3) (integer) 4",
        "3) \"len\"", "4) (integer) 6", "\"oh\"",
        "(error) ERR string exceeds maximum allowed size (proto-max-bulk-len)",
        "\"0.00000000000000001\"", "(error) ERR increment would produce NaN or Infinity", ""));
    Result stats = cli(null, "INFO", "commandstats");
    assertThat(stats.out()).containsPattern(
        "cmdstat_setbit:calls=2,usec=\\d+,usec_per_call=\\d+\\.\\d\\d,rejected_calls=0,failed_calls=1\r?\n");
    assertThat(cli(null, "INFO", "errorstats").out()).containsPattern("errorstat_ERR:count=\\d+");
  }

  /**
   * COPY, OBJECT and TOUCH from redis-cli in database 13: the output of Redis 7.2 (checked against a
   * real server; 7.0 differs only in "Prints this help.").
   */
  @Test
  void copyObjectTouch_printLikeRedis() throws Exception {
    assumeInstalled("redis-cli");
    String session = String.join("\n",
        "set cli:copy hello", "copy cli:copy cli:copy2", "copy cli:copy cli:copy2", "copy cli:copy cli:copy",
        "copy cli:copy cli:copy3 db 99", "object encoding cli:copy", "set cli:n 42", "object encoding cli:n",
        "object refcount cli:n", "object encoding cli:nokey", "object freq cli:copy",
        "object nosuch cli:copy", "touch cli:copy cli:copy2 cli:nokey", "object help", "");
    Result r = cli(session, "-n", "13", "--no-raw");
    assertThat(r.exit()).as("%s", r).isZero();
    assertThat(r.out()).isEqualTo(String.join("\n",
        "OK", "(integer) 1", "(integer) 0", "(error) ERR source and destination objects are the same",
        "(error) ERR DB index is out of range", "\"embstr\"", "OK", "\"int\"", "(integer) 2147483647", "(nil)",
        "(error) ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note"
            + " that when switching between policies at runtime LRU and LFU data will take some time to adjust.",
        "(error) ERR unknown subcommand 'nosuch'. Try OBJECT HELP.", "(integer) 2",
        " 1) OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        " 2) ENCODING <key>",
        " 3)     Return the kind of internal representation used in order to store the value",
        " 4)     associated with a <key>.",
        " 5) FREQ <key>",
        " 6)     Return the access frequency index of the <key>. The returned integer is",
        " 7)     proportional to the logarithm of the recent access frequency of the key.",
        " 8) IDLETIME <key>",
        " 9)     Return the idle time of the <key>, that is the approximated number of",
        "10)     seconds elapsed since the last access to the key.",
        "11) REFCOUNT <key>",
        "12)     Return the number of references of the value associated with the specified",
        "13)     <key>.",
        "14) HELP",
        "15)     Print this help.", ""));
    assertThat(cli(null, "-n", "13", "INFO", "keyspace").out()).contains("db13:keys=3,expires=0,avg_ttl=0");
  }

  /** {@code redis-cli --stat} reads INFO fields by name and prints LONG_MIN for a missing one. */
  @Test
  void statMode_printsEveryColumn() throws Exception {
    assumeInstalled("redis-cli");
    assumeInstalled("timeout");
    assumeInstalled("stdbuf");
    cli(null, "SET", "stat:key", "v");
    // --stat runs until interrupted; stdbuf keeps its lines from dying in the stdio buffer
    Result r = run(null, "timeout", "1.5", "stdbuf", "-o0", "redis-cli", "-p", port, "--stat", "-i", "0.1");
    List<String> lines = r.out().lines().toList();
    assertThat(lines).as("%s", r).hasSizeGreaterThan(2);
    assertThat(lines.get(1)).startsWith("keys").contains("blocked");
    String[] first = lines.get(2).trim().split("\\s+");
    assertThat(Long.parseLong(first[0])).as("keys in %s", lines.get(2)).isPositive();
    assertThat(first[3]).as("blocked clients in %s", lines.get(2)).isEqualTo("0");
    assertThat(r.out()).doesNotContain("-9223372036854775808").doesNotContain("SAVE").doesNotContain("AOF");
  }

  static Result benchmark(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("redis-benchmark", "-p", port, "-q"));
    cmd.addAll(List.of(args));
    return run(null, cmd.toArray(String[]::new));
  }

  static void assertClean(Result r, String... tests) {
    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    assertThat(r.out() + r.err()).doesNotContain("Error from server").doesNotContain("WARNING");
    for (String t : tests) {
      assertThat(r.out()).contains(t + ": ").contains("requests per second");
    }
  }

  @Test
  void benchmark_setGet50Clients_plainAndPipelined_noErrors() throws Exception {
    assumeInstalled("redis-benchmark");
    assertClean(benchmark("-t", "set,get", "-c", "50", "-n", "20000"), "SET", "GET");
    assertClean(benchmark("-t", "set,get", "-c", "50", "-n", "20000", "-P", "16", "-r", "100000"), "SET", "GET");
  }

  @Test
  void benchmark_otherDefaultTests_andDbnum_noErrors() throws Exception {
    assumeInstalled("redis-benchmark");
    assertClean(benchmark("-t", "ping,incr,mset", "-c", "20", "-n", "5000", "--dbnum", "1"),
        "PING_INLINE", "PING_MBULK", "INCR", "MSET (10 keys)");
  }
}
