package org.kvstore.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvstore.server.KVStoreServer;
import org.kvstore.server.ServerConfig;

/** The Thrift load generator's three client styles against a real server, at a tiny scale. */
class ThriftLoadTest {
  @TempDir static Path dir;
  static KVStoreServer server;

  @BeforeAll
  static void start() {
    server = KVStoreServer.start(ServerConfig.builder().set("data-dir", dir.toString()).set("resp-port", "0")
        .set("http-port", "-1").set("thrift-port", "0").set("durability", "periodic").build());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String[] args(String op, String mode, String... more) {
    String[] base = {op, "--port", String.valueOf(server.thriftPort()), "--clients", "8", "--keyspace", "500",
        "--requests", "3000", "--warmup-seconds", "0.2", "--mode", mode};
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  @ParameterizedTest
  @ValueSource(strings = {"selector", "async", "blocking"})
  void putThenGet_everyCallCountedAndEveryValueChecked(String mode) throws Exception {
    String put = ThriftLoad.measure(args("put", mode));
    assertThat(put).startsWith("op=put mode=" + mode + " clients=8 requests=3000 ").contains("rps=", "p99_ms=");
    String get = ThriftLoad.measure(args("get", mode));
    assertThat(get).startsWith("op=get mode=" + mode + " clients=8 requests=3000 ");
  }

  @ParameterizedTest
  @ValueSource(strings = {"selector", "async", "blocking"})
  void getOfAMissingKey_failsTheRun(String mode) {
    // Without the preload, keys of another table are missing: the run must fail, not count them.
    assertThatThrownBy(() -> ThriftLoad.measure(args("get", mode, "--preload", "false", "--table", "empty" + mode)))
        .hasStackTraceContaining("NotFound");
  }

  @org.junit.jupiter.api.Test
  void badArguments_rejectedWithWhatWasWrong() {
    assertThatThrownBy(() -> ThriftLoad.measure("put", "--clients", "many")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--clients").hasMessageContaining("many");
    assertThatThrownBy(() -> ThriftLoad.measure("scan")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("scan");
    assertThatThrownBy(() -> ThriftLoad.measure("get", "--mode", "threads")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("threads");
    assertThatThrownBy(() -> ThriftLoad.measure("get", "--clients", "0")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--clients");
  }

  @org.junit.jupiter.api.Test
  void largeValues_framesBiggerThanTheReadBuffer() throws Exception {
    String get = ThriftLoad.measure("get", "--port", String.valueOf(server.thriftPort()), "--clients", "8",
        "--keyspace", "20", "--requests", "200", "--warmup-seconds", "0.2", "--mode", "selector",
        "--value-size", "200000", "--table", "big");
    assertThat(get).startsWith("op=get mode=selector clients=8 requests=200 ");
  }
}
