package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Durability;
import org.kvstore.InvalidArgumentException;
import picocli.CommandLine;

class ServerConfigTest {
  @TempDir Path dir;

  @Test
  void defaults_matchTheIssue() {
    ServerConfig c = ServerConfig.defaults();
    assertThat(c.dataDir()).isEqualTo(Path.of("data"));
    assertThat(c.bind()).isEqualTo("127.0.0.1");
    assertThat(c.respPort()).isEqualTo(6379);
    assertThat(c.httpPort()).isEqualTo(8080);
    assertThat(c.thriftPort()).isEqualTo(9090);
    assertThat(c.durability()).isEqualTo(Durability.SYNC);
    assertThat(c.defaultEngine()).isNull();
    assertThat(c.password()).isNull();
    assertThat(c.protoMaxBulkLen()).isEqualTo(512L << 20);
    assertThat(c.protoMaxMultibulkLen()).isEqualTo(1 << 20);
  }

  @Test
  void yamlFile_setsEveryKey() throws Exception {
    Path f = Files.writeString(dir.resolve("s.yaml"), """
        data-dir: /var/kv
        bind: 0.0.0.0
        resp-port: 6380
        http-port: -1
        durability: periodic
        default-engine: bplus
        password: "p w"
        proto-max-bulk-len: 64mb
        """);
    ServerConfig c = ServerConfig.builder().setAll(ServerConfig.readFile(f), f.toString()).build();
    assertThat(c.dataDir()).isEqualTo(Path.of("/var/kv"));
    assertThat(c.bind()).isEqualTo("0.0.0.0");
    assertThat(c.respPort()).isEqualTo(6380);
    assertThat(c.httpPort()).isEqualTo(-1);
    assertThat(c.durability()).isEqualTo(Durability.PERIODIC);
    assertThat(c.defaultEngine()).isEqualTo("bplus");
    assertThat(c.password()).isEqualTo("p w");
    assertThat(c.protoMaxBulkLen()).isEqualTo(64L << 20);
    assertThat(c.toString()).doesNotContain("p w");
  }

  @Test
  void propertiesFile_andFlagsWin() throws Exception {
    Path f = Files.writeString(dir.resolve("s.properties"), "resp-port=7000\ndurability=none\n");
    ServerMain main = new ServerMain();
    new CommandLine(main).parseArgs("--config", f.toString(), "--resp-port", "7001");
    ServerConfig c = main.config();
    assertThat(c.respPort()).isEqualTo(7001);
    assertThat(c.durability()).isEqualTo(Durability.NONE);
  }

  @Test
  void blockCacheSize_defaultsToAQuarterOfTheHeap_andTakesSizes() {
    assertThat(ServerConfig.defaults().blockCacheBytes())
        .isEqualTo(Math.max(8L << 20, Runtime.getRuntime().maxMemory() / 4));
    ServerMain main = new ServerMain();
    new CommandLine(main).parseArgs("--block-cache-size", "96m");
    assertThat(main.config().blockCacheBytes()).isEqualTo(96L << 20);
    assertThat(ServerConfig.builder().set("block-cache-size", "0").build().blockCacheBytes()).isZero();
    assertThatThrownBy(() -> ServerConfig.builder().set("block-cache-size", "-1").build())
        .hasMessageContaining("block-cache-size");
  }

  @Test
  void writeBufferBudget_defaultsToAQuarterOfTheHeap_andTakesSizesOrZero() {
    assertThat(ServerConfig.defaults().writeBufferBytes())
        .isEqualTo(Math.max(8L << 20, Runtime.getRuntime().maxMemory() / 4));
    ServerMain main = new ServerMain();
    new CommandLine(main).parseArgs("--write-buffer-budget", "300m");
    assertThat(main.config().writeBufferBytes()).isEqualTo(300L << 20);
    assertThat(ServerConfig.builder().set("write-buffer-budget", "0").build().writeBufferBytes()).isZero();
    assertThatThrownBy(() -> ServerConfig.builder().set("write-buffer-budget", "512k").build())
        .hasMessageContaining("write-buffer-budget").hasMessageContaining("at least 1mb");
  }

  @Test
  void checkpointSettings_defaultToTheStores_andAreValidated() {
    ServerConfig d = ServerConfig.defaults();
    assertThat(d.checkpointIntervalSeconds())
        .isEqualTo(org.kvstore.StoreOptions.defaults().checkpointInterval().toSeconds());
    assertThat(d.checkpointLogBytes()).isEqualTo(org.kvstore.StoreOptions.defaults().checkpointLogBytes());
    ServerMain main = new ServerMain();
    new CommandLine(main).parseArgs("--checkpoint-interval", "0", "--checkpoint-log-size", "1g");
    assertThat(main.config().checkpointIntervalSeconds()).isZero();
    assertThat(main.config().checkpointLogBytes()).isEqualTo(1L << 30);
    assertThatThrownBy(() -> ServerConfig.builder().set("checkpoint-interval", "-5").build())
        .hasMessageContaining("checkpoint-interval");
    assertThatThrownBy(() -> ServerConfig.builder().set("checkpoint-log-size", "64k").build())
        .hasMessageContaining("checkpoint-log-size").hasMessageContaining("at least 1mb");
  }

  @Test
  void threads_byDefaultHalfTheCoresLoopAndTheRestHelpReads() {
    ServerConfig d = ServerConfig.defaults();
    assertThat(d.eventLoops(1)).isEqualTo(1);
    assertThat(d.readHelpers(1)).isZero();
    assertThat(d.eventLoops(2)).isEqualTo(1);
    assertThat(d.readHelpers(2)).isEqualTo(1);
    assertThat(d.eventLoops(8)).isEqualTo(4);
    assertThat(d.readHelpers(8)).isEqualTo(4);
    ServerMain main = new ServerMain();
    new CommandLine(main).parseArgs("--io-threads", "3", "--read-threads", "0");
    assertThat(main.config().eventLoops(2)).isEqualTo(3);
    assertThat(main.config().readHelpers(2)).isZero();
    ServerConfig explicit = ServerConfig.builder().set("io-threads", "2").set("read-threads", "auto").build();
    assertThat(explicit.readHelpers(2)).isZero();
    assertThat(explicit.readHelpers(6)).isEqualTo(4);
    assertThatThrownBy(() -> ServerConfig.builder().set("read-threads", "-1").build())
        .hasMessageContaining("read-threads");
    assertThatThrownBy(() -> ServerConfig.builder().set("read-threads", "2000").build())
        .hasMessageContaining("read-threads");
  }

  @Test
  void unknownKeysAndBadValues_areErrorsNamingTheKey() throws Exception {
    Path f = Files.writeString(dir.resolve("s.yml"), "resp-prot: 1\n");
    assertThatThrownBy(() -> ServerConfig.builder().setAll(ServerConfig.readFile(f), f.toString()))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("unknown key 'resp-prot'");
    assertThatThrownBy(() -> ServerConfig.builder().set("resp-port", "70000").build())
        .hasMessageContaining("resp-port");
    assertThatThrownBy(() -> ServerConfig.builder().set("durability", "always"))
        .hasMessageContaining("durability");
    Path nested = Files.writeString(dir.resolve("n.yaml"), "bind:\n  - a\n");
    assertThatThrownBy(() -> ServerConfig.readFile(nested)).hasMessageContaining("single value");
  }
}
