package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.testkit.Seeds;
import org.kvstore.cluster.slots.HashSlot;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A three-node cluster of server processes ({@code --cluster-node-id}, {@code --cluster-nodes}) and
 * unmodified cluster clients: Jedis' {@code JedisCluster}, Lettuce's {@code RedisClusterClient},
 * redis-py's {@code RedisCluster} and {@code redis-cli -c}. Hash tags, {@code -CROSSSLOT} and
 * {@code -MOVED}, the slot map's commands, and the clients following a leader change after a
 * node is killed with SIGKILL: nothing acknowledged is lost, and the restarted node serves again.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterClientsTest {
  @TempDir static Path dir;
  static ClusterProcesses cluster;
  static Map<String, Integer> PORTS;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new ClusterProcesses(dir);
    PORTS = cluster.ports;
    cluster.startAll();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static Set<HostAndPort> seeds() {
    Set<HostAndPort> seeds = new HashSet<>();
    for (int port : PORTS.values()) {
      seeds.add(new HostAndPort("127.0.0.1", port));
    }
    return seeds;
  }

  static String nodeServing(String key) {
    return cluster.nodeServing(key);
  }

  @Test
  @Order(1)
  void slotMap_coversEverySlotOnceAndNodesAgree() {
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get("n2"))) {
      List<Object> slots = j.clusterSlots();
      long covered = 0;
      for (Object range : slots) {
        List<?> r = (List<?>) range;
        covered += (Long) r.get(1) - (Long) r.get(0) + 1;
      }
      assertThat(covered).isEqualTo(HashSlot.COUNT);
      String nodes = j.clusterNodes();
      assertThat(nodes.lines()).hasSize(3).anyMatch(l -> l.contains("myself,master"));
      assertThat(j.clusterMyId()).hasSize(40).matches("[0-9a-f]+");
      assertThat(j.clusterKeySlot("{user1000}.following")).isEqualTo(j.clusterKeySlot("user1000"));
      assertThat(j.clusterKeySlot("123456789")).isEqualTo(0x31C3 % HashSlot.COUNT);
      assertThatThrownBy(() -> j.select(1)).isInstanceOf(JedisDataException.class)
          .hasMessage("ERR SELECT is not allowed in cluster mode");
      assertThatThrownBy(() -> j.mset("a", "1", "b", "2")).isInstanceOf(JedisDataException.class)
          .hasMessage("CROSSSLOT Keys in request don't hash to the same slot");
      assertThat(j.info("cluster")).contains("cluster_enabled:1").contains("kvstore_shard_s0:role=");
    }
    List<List<String>> ids = new ArrayList<>();
    for (String id : PORTS.keySet()) {
      try (Jedis j = new Jedis("127.0.0.1", PORTS.get(id))) {
        ids.add(j.clusterNodes().lines().map(l -> l.substring(0, 40)).sorted().toList());
      }
    }
    assertThat(ids.get(1)).as("every node lists the same ids").isEqualTo(ids.get(0)).isEqualTo(ids.get(2));
  }

  @Test
  @Order(1)
  void metrics_showEachShardsRoleTermIndexesAndLag() throws Exception {
    String leader = nodeServing("metrics-key");
    int http = cluster.node(leader).httpPort();
    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    String body = client.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + http + "/metrics")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    int slot = HashSlot.of("metrics-key".getBytes(StandardCharsets.UTF_8));
    String shard = slot <= 5460 ? "s0" : slot <= 10922 ? "s1" : "s2"; // redis-cli's split over three
    assertThat(body)
        .contains("kv_cluster_shard_leader{shard=\"" + shard + "\"} 1.0")
        .contains("kv_cluster_shard_term{shard=\"" + shard + "\"}")
        .contains("kv_cluster_shard_commit_index{shard=\"s0\"}")
        .contains("kv_cluster_shard_applied_index{shard=\"s2\"}")
        .containsPattern("kv_cluster_follower_lag_entries\\{follower=\"n[123]\",shard=\"" + shard + "\"\\}");
  }

  @Test
  @Order(1)
  void expiredKey_isRemovedByItsShardsLeader_andCountedInInfoAndMetrics() throws Exception {
    String node = nodeServing("expiry-key");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get(node))) {
      j.psetex("expiry-key", 100, "v");
      while (!j.info("stats").matches("(?s).*expired_keys:[1-9].*")) {
        assertThat(System.nanoTime()).as("INFO stats of %s counts the removal: %s", node, j.info("stats"))
            .isLessThan(deadline);
        Thread.sleep(50);
      }
    }
    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    String body = client.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + cluster.node(node).httpPort() + "/metrics")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    assertThat(body).containsPattern("(?m)^kv_cluster_expired_keys_total [1-9]");
  }

  /** The node's linearizable reads through Raft so far, over its shards ({@code /metrics}). */
  private static long readBarriers(String node) throws Exception {
    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    String body = client.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + cluster.node(node).httpPort() + "/metrics")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("(?m)^kv_cluster_read_barriers_total\\{shard=\"s[0-9]+\"\\} ([0-9.E]+)$").matcher(body);
    double sum = 0;
    int shards = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
      shards++;
    }
    assertThat(shards).as("kv_cluster_read_barriers_total per shard in %s", body).isEqualTo(3);
    return (long) sum;
  }

  @Test
  @Order(2)
  void pipelinedGets_readTogetherWithOneBarrierPerRun_andMovedWhereAnotherNodeLeads() throws Exception {
    int n = 90;
    try (JedisCluster jc = new JedisCluster(seeds())) {
      for (int i = 0; i < n; i++) {
        jc.set("pg:" + i, "v" + i);
      }
    }
    String node = nodeServing("pg:0");
    long before = readBarriers(node);
    List<Object> replies;
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get(node))) {
      redis.clients.jedis.Pipeline p = j.pipelined();
      for (int i = 0; i < n; i++) {
        p.get("pg:" + i);
      }
      replies = p.syncAndReturnAll();
    }
    long barriers = readBarriers(node) - before;
    int local = 0;
    for (int i = 0; i < n; i++) {
      String key = "pg:" + i;
      String serving = nodeServing(key);
      if (serving.equals(node)) {
        assertThat(replies.get(i)).as(key).isEqualTo("v" + i);
        local++;
      } else {
        assertThat(replies.get(i)).as(key).isInstanceOf(JedisDataException.class);
        assertThat(((JedisDataException) replies.get(i)).getMessage())
            .isEqualTo("MOVED " + HashSlot.of(key.getBytes(StandardCharsets.UTF_8)) + " 127.0.0.1:" + PORTS.get(serving));
      }
    }
    assertThat(local).isGreaterThan(10);
    // One GET at a time would take one barrier each; a run of them takes one per shard.
    assertThat(barriers).as("read barriers for %d pipelined GETs this node served", local).isLessThan(local / 2);
  }

  @Test
  @Order(2)
  void pipelinedMgetsAndExists_readTogetherWithGets_andEachGetsItsOwnRedirectOrCrossSlotError()
      throws Exception {
    String node = nodeServing("pm:0");
    // Hash tags this node serves, each with keys a and b written (c never is).
    List<String> tags = new ArrayList<>();
    try (JedisCluster jc = new JedisCluster(seeds())) {
      for (int i = 0; tags.size() < 12 && i < 1000; i++) {
        String tag = "{pm" + i + "}";
        if (nodeServing(tag + "a").equals(node)) {
          tags.add(tag);
          jc.set(tag + "a", "A" + i);
          jc.set(tag + "b", "B" + i);
        }
      }
    }
    assertThat(tags).hasSize(12);
    String elsewhere = null;
    for (int i = 0; elsewhere == null; i++) {
      if (!nodeServing("{pmx" + i + "}a").equals(node)) {
        elsewhere = "{pmx" + i + "}";
      }
    }
    long before = readBarriers(node);
    List<Object> replies;
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get(node))) {
      redis.clients.jedis.Pipeline p = j.pipelined();
      for (String t : tags) {
        p.mget(t + "a", t + "c", t + "b");
        p.exists(t + "a", t + "a", t + "c");
        p.get(t + "b");
      }
      p.mget(elsewhere + "a", elsewhere + "b");
      p.mget(tags.get(0) + "a", crossSlotPartner(tags) + "a");
      p.exists(tags.get(0) + "a");
      replies = p.syncAndReturnAll();
    }
    long barriers = readBarriers(node) - before;
    for (int t = 0; t < tags.size(); t++) {
      String i = tags.get(t).substring(3, tags.get(t).length() - 1);
      assertThat(replies.get(3 * t)).as("MGET %s", tags.get(t)).isEqualTo(java.util.Arrays.asList("A" + i, null, "B" + i));
      assertThat(replies.get(3 * t + 1)).as("EXISTS %s", tags.get(t)).isEqualTo(2L);
      assertThat(replies.get(3 * t + 2)).as("GET %s", tags.get(t)).isEqualTo("B" + i);
    }
    int at = 3 * tags.size();
    assertThat(replies.get(at)).isInstanceOf(JedisDataException.class);
    assertThat(((JedisDataException) replies.get(at)).getMessage()).isEqualTo("MOVED "
        + HashSlot.of((elsewhere + "a").getBytes(StandardCharsets.UTF_8)) + " 127.0.0.1:"
        + PORTS.get(nodeServing(elsewhere + "a")));
    assertThat(replies.get(at + 1)).isInstanceOf(JedisDataException.class);
    assertThat(((JedisDataException) replies.get(at + 1)).getMessage())
        .isEqualTo("CROSSSLOT Keys in request don't hash to the same slot");
    assertThat(replies.get(at + 2)).as("EXISTS of one key (Jedis answers a Boolean)").isEqualTo(true);
    // One command at a time would take one barrier each (37 here); a run takes one per shard.
    assertThat(barriers).as("read barriers for %d pipelined reads", 3 * tags.size() + 1).isLessThan(10);
  }

  /** A tag of {@code tags} whose key "a" is in another slot than the first tag's. */
  private static String crossSlotPartner(List<String> tags) {
    int first = HashSlot.of((tags.get(0) + "a").getBytes(StandardCharsets.UTF_8));
    return tags.stream().filter(t -> HashSlot.of((t + "a").getBytes(StandardCharsets.UTF_8)) != first)
        .findFirst().orElseThrow();
  }

  /** The commit index of shard {@code shard} on {@code node} ({@code /metrics}). */
  private static long commitIndex(String node, String shard) throws Exception {
    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    String body = client.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + cluster.node(node).httpPort() + "/metrics")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(
        "(?m)^kv_cluster_shard_commit_index\\{shard=\"" + shard + "\"\\} ([0-9.E]+)$").matcher(body);
    assertThat(m.find()).as("commit index of %s in %s", shard, body).isTrue();
    return (long) Double.parseDouble(m.group(1));
  }

  @Test
  @Order(2)
  void pipelinedSets_writeOneRaftEntryPerShardAndRun_andMovedWhereAnotherNodeLeads() throws Exception {
    int n = 90;
    String node = nodeServing("ps:0");
    int slot0 = HashSlot.of("ps:0".getBytes(StandardCharsets.UTF_8));
    String shard = slot0 <= 5460 ? "s0" : slot0 <= 10922 ? "s1" : "s2";
    long before = commitIndex(node, shard);
    List<Object> replies;
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get(node))) {
      redis.clients.jedis.Pipeline p = j.pipelined();
      for (int i = 0; i < n; i++) {
        p.set("ps:" + i, "w" + i);
      }
      p.set("ps:0", "last"); // two SETs of a key in one run: the later wins
      replies = p.syncAndReturnAll();
    }
    long entries = commitIndex(node, shard) - before;
    int local = 0;
    try (JedisCluster jc = new JedisCluster(seeds())) {
      for (int i = 0; i < n; i++) {
        String key = "ps:" + i;
        String serving = nodeServing(key);
        if (serving.equals(node)) {
          assertThat(replies.get(i)).as(key).isEqualTo("OK");
          assertThat(jc.get(key)).as(key).isEqualTo(i == 0 ? "last" : "w" + i);
          local++;
        } else {
          assertThat(replies.get(i)).as(key).isInstanceOf(JedisDataException.class);
          assertThat(((JedisDataException) replies.get(i)).getMessage()).startsWith("MOVED ");
          assertThat(jc.get(key)).as("%s was refused, not written", key).isNull();
        }
      }
    }
    assertThat(replies.get(n)).isEqualTo("OK");
    assertThat(local).isGreaterThan(10);
    // One SET at a time would be one Raft entry each; a run of them is one entry per shard.
    assertThat(entries).as("Raft entries of shard %s for %d pipelined SETs", shard, local + 1).isLessThan(local / 2);
  }

  @Test
  @Order(2)
  void pipelinedSetsWithExpiry_writeOneRaftEntryPerShardAndRun_withTheirExpiries() throws Exception {
    String node = nodeServing("pe:0");
    int slot0 = HashSlot.of("pe:0".getBytes(StandardCharsets.UTF_8));
    String shard = slot0 <= 5460 ? "s0" : slot0 <= 10922 ? "s1" : "s2";
    List<String> local = new ArrayList<>();
    for (int i = 0; local.size() < 40; i++) {
      String key = "pe:" + i;
      int slot = HashSlot.of(key.getBytes(StandardCharsets.UTF_8));
      if (nodeServing(key).equals(node) && (slot <= 5460 ? "s0" : slot <= 10922 ? "s1" : "s2").equals(shard)) {
        local.add(key);
      }
    }
    long before = commitIndex(node, shard);
    List<Object> replies;
    long exat = System.currentTimeMillis() / 1000 + 500;
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get(node))) {
      redis.clients.jedis.Pipeline p = j.pipelined();
      for (int i = 0; i < local.size(); i++) {
        String key = local.get(i);
        switch (i % 4) {
          case 0 -> p.set(key, "v" + i, redis.clients.jedis.params.SetParams.setParams().ex(100));
          case 1 -> p.set(key, "v" + i, redis.clients.jedis.params.SetParams.setParams().px(200_000));
          case 2 -> p.set(key, "v" + i, redis.clients.jedis.params.SetParams.setParams().exAt(exat));
          default -> p.set(key, "v" + i);
        }
      }
      replies = p.syncAndReturnAll();
    }
    long entries = commitIndex(node, shard) - before;
    assertThat(replies).as("every SET acknowledged").containsOnly("OK");
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get(node))) {
      for (int i = 0; i < local.size(); i++) {
        String key = local.get(i);
        assertThat(j.get(key)).as(key).isEqualTo("v" + i);
        long ttl = j.ttl(key);
        switch (i % 4) {
          case 0 -> assertThat(ttl).as("TTL of %s (EX 100)", key).isBetween(90L, 100L);
          case 1 -> assertThat(ttl).as("TTL of %s (PX 200000)", key).isBetween(190L, 200L);
          case 2 -> assertThat(ttl).as("TTL of %s (EXAT now + 500)", key).isBetween(490L, 500L);
          default -> assertThat(ttl).as("TTL of %s (no expiry)", key).isEqualTo(-1L);
        }
      }
    }
    // One SET at a time would be one Raft entry each; a run of them is one entry per shard.
    assertThat(entries).as("Raft entries of shard %s for %d pipelined SETs", shard, local.size())
        .isLessThan(local.size() / 2);
  }

  @Test
  @Order(2)
  void pipelinedLargeSets_areCutIntoRunsOfAtMostOneMebibyte() throws Exception {
    // A run of SETs of a shard is one Raft entry, so the run is cut at 1 MiB of requests: 12 SETs
    // of 512 KiB to one slot go as one entry each (not as one 6 MiB entry).
    byte[] value = new byte[512 * 1024];
    java.util.Arrays.fill(value, (byte) 'x');
    String node = nodeServing("{pl}:0");
    int slot = HashSlot.of("{pl}:0".getBytes(StandardCharsets.UTF_8));
    String shard = slot <= 5460 ? "s0" : slot <= 10922 ? "s1" : "s2";
    long before = commitIndex(node, shard);
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get(node), 60_000)) {
      redis.clients.jedis.Pipeline p = j.pipelined();
      for (int i = 0; i < 12; i++) {
        value[0] = (byte) ('a' + i);
        p.set(("{pl}:" + i).getBytes(StandardCharsets.UTF_8), value.clone());
      }
      assertThat(p.syncAndReturnAll()).as("every SET acknowledged").containsOnly("OK");
      assertThat(commitIndex(node, shard) - before).as("Raft entries for 12 SETs of 512 KiB").isGreaterThanOrEqualTo(12);
      assertThat(j.strlen("{pl}:11")).isEqualTo(value.length);
      assertThat(j.getrange("{pl}:11", 0, 0)).isEqualTo("l");
      for (int i = 0; i < 12; i++) {
        j.del("{pl}:" + i);
      }
    }
  }

  @Test
  @Order(2)
  void largeValue_upToTheClusterMaxWriteSize_isStored_andALargerSetGetsAnErrorNamingItsKey() throws Exception {
    // Above Ratis' default appender buffer (4 MiB), below cluster-max-write-size (16 MiB by default).
    byte[] value = new byte[6 << 20];
    new java.util.Random(Seeds.seed("ClusterClientsTest.largeValue")).nextBytes(value);
    byte[] key = "{lv}:big".getBytes(StandardCharsets.UTF_8);
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get(nodeServing("{lv}:big")), 60_000)) {
      assertThat(j.set(key, value)).isEqualTo("OK");
      assertThat(j.get(key)).isEqualTo(value);
      byte[] tooLarge = new byte[(16 << 20) + 1];
      assertThatThrownBy(() -> j.set("{lv}:huge".getBytes(StandardCharsets.UTF_8), tooLarge))
          .isInstanceOf(JedisDataException.class)
          .hasMessageStartingWith("ERR invalid value: the write of key '{lv}:huge' to table")
          .hasMessageContaining("above the cluster's largest write of 16777216 bytes (cluster-max-write-size)");
      assertThat(j.exists("{lv}:huge")).isFalse();
      assertThat(j.strlen(key)).as("the connection still serves").isEqualTo(value.length);
      j.del(key);
    }
  }

  @Test
  @Order(2)
  void http_writeToANodeThatDoesNotLeadTheSlot_isMisdirectedNamingTheLeader_andReadsAnswerOnAnyNode()
      throws Exception {
    String key = "http-moved";
    String serving = nodeServing(key);
    String other = PORTS.keySet().stream().filter(id -> !id.equals(serving)).findFirst().orElseThrow();
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.util.function.IntFunction<java.net.URI> keyUri =
        port -> java.net.URI.create("http://127.0.0.1:" + port + "/v1/dbs/default/tables/0/keys/" + key);
    var put = java.net.http.HttpRequest.newBuilder(keyUri.apply(cluster.node(other).httpPort()))
        .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("v1")).build();
    var moved = http.send(put, java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(moved.statusCode()).as(moved.body()).isEqualTo(421);
    var problem = new com.fasterxml.jackson.databind.ObjectMapper().readTree(moved.body());
    assertThat(problem.get("code").asText()).isEqualTo("moved");
    assertThat(problem.get("node").asText()).isEqualTo(serving);
    assertThat(problem.get("endpoint").asText()).isEqualTo("127.0.0.1:" + PORTS.get(serving));
    assertThat(problem.get("slot").asInt()).isEqualTo(HashSlot.of(key.getBytes(StandardCharsets.UTF_8)));

    var putThere = java.net.http.HttpRequest.newBuilder(keyUri.apply(cluster.node(serving).httpPort()))
        .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("v1")).build();
    assertThat(http.send(putThere, java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode()).isBetween(200, 204);
    var get = java.net.http.HttpRequest.newBuilder(keyUri.apply(cluster.node(other).httpPort())).GET().build();
    var read = http.send(get, java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(read.statusCode()).as("a linearizable read on a replica").isEqualTo(200);
    assertThat(read.body()).isEqualTo("v1");
  }

  @Test
  @Order(2)
  void plainConnection_getsMovedToTheSlotsNode() {
    String key = "moved-key";
    String serving = nodeServing(key);
    String other = PORTS.keySet().stream().filter(id -> !id.equals(serving)).findFirst().orElseThrow();
    try (Jedis j = new Jedis("127.0.0.1", PORTS.get(other))) {
      assertThatThrownBy(() -> j.set(key, "v")).isInstanceOf(JedisDataException.class)
          .hasMessage("MOVED " + HashSlot.of(key.getBytes(StandardCharsets.UTF_8)) + " 127.0.0.1:" + PORTS.get(serving));
      j.readonly();
      assertThat(j.get(key)).as("READONLY: a linearizable read on a replica").isNull();
      j.readwrite();
      assertThatThrownBy(() -> j.get(key)).isInstanceOf(JedisDataException.class).hasMessageStartingWith("MOVED ");
    }
  }

  @Test
  @Order(3)
  void jedisCluster_routesByCommandAndHashTag() {
    try (JedisCluster jc = new JedisCluster(seeds())) {
      for (int i = 0; i < 300; i++) {
        jc.set("jedis:" + i, "v" + i);
      }
      for (int i = 0; i < 300; i++) {
        assertThat(jc.get("jedis:" + i)).isEqualTo("v" + i);
      }
      jc.mset("{j}.a", "1", "{j}.b", "2");
      assertThat(jc.mget("{j}.a", "{j}.b")).containsExactly("1", "2");
      assertThat(jc.incrBy("{j}.n", 7)).isEqualTo(7);
      assertThat(jc.setnx("{j}.a", "x")).isZero();
      assertThat(jc.del("jedis:0")).isEqualTo(1);
      assertThat(jc.exists("jedis:0")).isFalse();
    }
  }

  @Test
  @Order(4)
  void lettuceCluster_readsTopologyFromClusterNodesAndInfo() {
    List<RedisURI> uris = new ArrayList<>();
    for (int port : PORTS.values()) {
      uris.add(RedisURI.create("127.0.0.1", port));
    }
    RedisClusterClient client = RedisClusterClient.create(uris);
    try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
      RedisAdvancedClusterCommands<String, String> sync = c.sync();
      assertThat(c.getPartitions().size()).isEqualTo(3);
      for (int i = 0; i < 300; i++) {
        sync.set("lettuce:" + i, "v" + i);
      }
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        keys.add("lettuce:" + i);
      }
      // Lettuce splits a multi-slot MGET by slot and merges the replies.
      assertThat(sync.mget(keys.toArray(String[]::new))).hasSize(300)
          .allSatisfy(kv -> assertThat(kv.getValue()).isEqualTo("v" + kv.getKey().substring("lettuce:".length())));
      assertThat(sync.append("{l}.s", "ab")).isEqualTo(2);
      assertThat(sync.append("{l}.s", "cd")).isEqualTo(4);
      assertThat(sync.get("{l}.s")).isEqualTo("abcd");
    } finally {
      client.shutdown();
    }
  }

  @Test
  @Order(5)
  void redisPyCluster_routesByTheCommandReply() throws Exception {
    String python = RedisPyTest.python();
    Result probe = run(python, "-c", "import redis.cluster");
    Assumptions.assumeTrue(probe.exit() == 0,
        "'" + python + "' cannot import redis.cluster: install redis-py (.ci/run sets KVSTORE_TEST_PYTHON)");
    Path script = dir.resolve("redis_py_cluster.py");
    try (InputStream in = ClusterClientsTest.class.getResourceAsStream("/redis_py_cluster.py")) {
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    Result r = run(python, script.toString(), "127.0.0.1", Integer.toString(PORTS.get("n3")));
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).contains("OK");
  }

  @Test
  @Order(6)
  void redisCliC_followsMoved() throws Exception {
    RedisToolsTest.assumeInstalled("redis-cli");
    String port = Integer.toString(PORTS.get("n1"));
    for (int i = 0; i < 10; i++) {
      Result set = run("redis-cli", "-c", "-p", port, "SET", "cli:" + i, "v" + i);
      assertThat(set.out().trim()).as(set.toString()).isEqualTo("OK");
    }
    for (int i = 0; i < 10; i++) {
      Result get = run("redis-cli", "-c", "-p", Integer.toString(PORTS.get("n2")), "GET", "cli:" + i);
      assertThat(get.out().trim()).isEqualTo("v" + i);
    }
  }

  /**
   * SIGKILL of the node that serves a key's slot under a JedisCluster client: the client follows
   * the new leader (connection refused, a new slot map, -MOVED), nothing acknowledged is lost, and
   * the restarted node catches up and serves again.
   */
  @Test
  @Order(7)
  void leaderKilled_clientsFollowTheNewLeaderAndNothingAcknowledgedIsLost() throws Exception {
    String victim = nodeServing("kill:0");
    Map<String, String> acknowledged = new LinkedHashMap<>();
    try (JedisCluster jc = new JedisCluster(seeds(), 2000, 10)) {
      Set<String> victimKeys = new HashSet<>();
      for (int i = 0; i < 100; i++) {
        jc.set("kill:" + i, "before" + i);
        acknowledged.put("kill:" + i, "before" + i);
        if (nodeServing("kill:" + i).equals(victim)) {
          victimKeys.add("kill:" + i);
        }
      }
      cluster.kill9(victim);
      long killed = System.nanoTime();
      long firstWrite = -1;
      for (int i = 0; i < 100; i++) {
        String key = "kill:" + i;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
          try {
            jc.set(key, "after" + i);
            acknowledged.put(key, "after" + i);
            if (firstWrite < 0 && victimKeys.contains(key)) {
              firstWrite = System.nanoTime();
            }
            break;
          } catch (RuntimeException e) {
            if (System.nanoTime() > deadline) {
              throw new AssertionError("no write of " + key + " within 30 s of the kill", e);
            }
            Thread.sleep(100);
          }
        }
      }
      assertThat(nodeServing("kill:0")).as("another node serves the slot").isNotEqualTo(victim);
      assertThat(firstWrite).isPositive();
      System.out.printf("first write to the killed leader's slots %d ms after SIGKILL%n",
          TimeUnit.NANOSECONDS.toMillis(firstWrite - killed));

      cluster.start(victim);
      cluster.awaitClusterOk();
      for (Map.Entry<String, String> e : acknowledged.entrySet()) {
        assertThat(jc.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }
    }
    // The restarted node has every entry: with READONLY it serves linearizable reads of them.
    // (It may still be catching up, or taking its shards' lead back: a read waits for that.)
    try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", PORTS.get(victim)),
        redis.clients.jedis.DefaultJedisClientConfig.builder().socketTimeoutMillis(15_000).build())) {
      j.readonly();
      for (Map.Entry<String, String> e : acknowledged.entrySet()) {
        assertThat(j.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }
    }
  }

  record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  static Result run(String... cmd) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p = new ProcessBuilder(cmd)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + String.join(" ", cmd));
    }
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }
}
