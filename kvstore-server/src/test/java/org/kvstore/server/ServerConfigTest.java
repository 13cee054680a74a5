package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Durability;
import org.kvstore.InvalidArgumentException;

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
    ServerMain.commandLine(main).parseArgs("--config", f.toString(), "--resp-port", "7001");
    ServerConfig c = main.config();
    assertThat(c.respPort()).isEqualTo(7001);
    assertThat(c.durability()).isEqualTo(Durability.NONE);
  }

  @Test
  void blockCacheSize_defaultsToAQuarterOfTheHeap_andTakesSizes() {
    assertThat(ServerConfig.defaults().blockCacheBytes())
        .isEqualTo(Math.max(8L << 20, Runtime.getRuntime().maxMemory() / 4));
    ServerMain main = new ServerMain();
    ServerMain.commandLine(main).parseArgs("--block-cache-size", "96m");
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
    ServerMain.commandLine(main).parseArgs("--write-buffer-budget", "300m");
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
    ServerMain.commandLine(main).parseArgs("--checkpoint-interval", "0", "--checkpoint-log-size", "1g");
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
    ServerMain.commandLine(main).parseArgs("--io-threads", "3", "--read-threads", "0");
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

  @Test
  void clusterSettings_fitTogetherOrNameWhatIsWrong() {
    String nodes = "n1=127.0.0.1:7001@17001, n2=127.0.0.1:7002@17002,n3=127.0.0.1:7003@17003";
    ServerConfig c = ServerConfig.builder().set("cluster-node-id", "n2").set("cluster-nodes", nodes).build();
    assertThat(c.respPort()).as("the node's port in the list").isEqualTo(7002);
    assertThat(c.clusterShards()).as("one shard per node by default").isEqualTo(3);
    assertThat(c.clusterNodes().members()).extracting(m -> m.id()).containsExactly("n1", "n2", "n3");
    assertThat(c.clusterNodes().raftAddresses()).containsEntry("n3", "127.0.0.1:17003");
    assertThat(ServerConfig.defaults().clusterNodeId()).isNull();

    assertThatThrownBy(() -> ServerConfig.builder().set("cluster-node-id", "n4").set("cluster-nodes", nodes).build())
        .hasMessageContaining("'n4' is not one of the cluster-nodes [n1, n2, n3]");
    assertThatThrownBy(() -> ServerConfig.builder().set("cluster-node-id", "n1").build())
        .hasMessageContaining("needs both cluster-node-id and cluster-nodes");
    assertThatThrownBy(() -> ServerConfig.builder().set("cluster-node-id", "n1").set("cluster-nodes", nodes)
        .set("resp-port", "6000").build())
        .hasMessageContaining("resp-port").hasMessageContaining("7001");
    assertThatThrownBy(() -> ServerConfig.builder().set("cluster-nodes", "n1=127.0.0.1:7001"))
        .hasMessageContaining("'n1=127.0.0.1:7001' is not id=host:port@raftport");
    assertThatThrownBy(() -> ServerConfig.builder().set("cluster-nodes", "n1=h:7001@17001,n1=h:7002@17002"))
        .hasMessageContaining("node id 'n1' is listed twice");
    assertThatThrownBy(() -> ServerConfig.builder().set("cluster-nodes", "n1=h:7001@17001,n2=h:7001@17002"))
        .hasMessageContaining("address h:7001 is used twice");
    assertThatThrownBy(() -> ServerConfig.builder().set("cluster-nodes", "n1=h:99999@17001"))
        .hasMessageContaining("the port '99999'");
    assertThatThrownBy(() -> ServerConfig.builder().set("cluster-shards", "20000"))
        .hasMessageContaining("cluster-shards");
  }

  @Test
  void help_listsEverySettingWithItsLabelAndDefault() {
    StringWriter out = new StringWriter();
    picocli.CommandLine cli = ServerMain.commandLine(new ServerMain());
    cli.setOut(new PrintWriter(out));
    assertThat(cli.execute("--help")).isZero();
    // picocli wraps long descriptions; the text without line breaks is what a reader sees.
    String help = out.toString().replaceAll("\\s+", " ");
    assertThat(ServerConfig.SETTINGS).hasSize(40);
    for (Setting<?> s : ServerConfig.SETTINGS) {
      assertThat(help).as(s.key())
          .contains(s.flag() + "=" + s.paramLabel())
          .contains(s.help().replaceAll("\\s+", " ") + " (default: " + s.defaultText() + ")");
    }
    assertThat(help).contains("--config=FILE", "--help", "--version");
  }

  @Test
  void docsTable_documentsEverySettingWithItsDefault_andNothingElse() throws Exception {
    Path doc = Path.of("..", "docs", "server.md");
    assertThat(doc).exists();
    String text = Files.readString(doc);
    int from = text.indexOf("## Flags and the configuration file");
    assertThat(from).as("settings section of docs/server.md").isNotNegative();
    int to = text.indexOf("\n## ", from + 1);
    Pattern row = Pattern.compile("(?m)^\\| `--([a-z-]+)( [A-Z]+)?` \\| ([^|]*) \\|");
    Map<String, String> documented = new LinkedHashMap<>();
    Matcher m = row.matcher(text.substring(from, to < 0 ? text.length() : to));
    while (m.find()) {
      if (!m.group(1).equals("config")) {
        assertThat(documented.put(m.group(1), m.group(3).replace("`", "").trim())).as("rows of " + m.group(1)).isNull();
      }
    }
    List<String> keys = new ArrayList<>();
    ServerConfig.SETTINGS.forEach(s -> keys.add(s.key()));
    assertThat(documented.keySet()).as("documented settings, in declaration order").containsExactlyElementsOf(keys);
    for (Setting<?> s : ServerConfig.SETTINGS) {
      String cell = documented.get(s.key());
      // The declared default, optionally followed by a note in parentheses.
      assertThat(cell.equals(s.defaultText()) || cell.startsWith(s.defaultText() + " ("))
          .as("default of %s in docs/server.md is '%s', declared '%s'", s.key(), cell, s.defaultText()).isTrue();
    }
  }

  @Test
  void everyFlag_setsItsSetting_andTheDefaultTextReadsBackAsTheDefault() {
    for (Setting<?> s : ServerConfig.SETTINGS) {
      roundTrip(s);
    }
  }

  private static <T> void roundTrip(Setting<T> s) {
    T def = s.defaultValue();
    if (def == null) {
      assertThat(s.defaultText()).as(s.key()).isIn("auto", "none");
      return;
    }
    String text = s.format(def);
    assertThat(s.parse(text)).as(s.key()).isEqualTo(def);
    if (!s.defaultText().contains(" ")) {
      assertThat(s.parse(s.defaultText())).as(s.key()).isEqualTo(def);
    }
    ServerMain main = new ServerMain();
    ServerMain.commandLine(main).parseArgs(s.flag(), text);
    assertThat(main.config().get(s)).as(s.key()).isEqualTo(def);
  }

  @Test
  void badFlag_errorNamesTheFlagTheSettingAndTheValue() {
    ServerMain main = new ServerMain();
    ServerMain.commandLine(main).parseArgs("--databases", "0");
    assertThatThrownBy(main::config)
        .hasMessageContaining("--databases").hasMessageContaining("from 1 to 1000000").hasMessageContaining("'0'");
    assertThatThrownBy(() -> ServerConfig.builder().set("io-spin-micros", "fast"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("io-spin-micros").hasMessageContaining("'fast'");
    assertThatThrownBy(() -> ServerConfig.builder().set(ServerConfig.RESP_PORT, 70000))
        .hasMessageContaining("resp-port").hasMessageContaining("70000");
  }

  @Test
  void password_isNeverShown_andBlankMeansNone() {
    assertThat(ServerConfig.builder().set("password", " ").build().password()).isNull();
    assertThat(ServerConfig.builder().set("password", " s3 ").build().password()).isEqualTo(" s3 ");
    assertThat(ServerConfig.builder().set("password", "s3cret").build().toString())
        .contains("password=***").doesNotContain("s3cret");
  }
}
