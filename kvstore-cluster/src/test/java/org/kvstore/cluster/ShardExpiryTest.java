package org.kvstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.PutOptions;
import org.kvstore.StoreOptions;
import org.kvstore.testkit.FakeClock;
import org.kvstore.testkit.Seeds;

/**
 * {@link ShardExpiry} on three nodes and three shards in one JVM, all on one {@link FakeClock}: the
 * leader of each shard removes its expired entries through Raft, so they leave every replica's
 * table (seen by a cursor that includes expired entries) and the replicas stay identical; a write
 * that refreshes a key before its removal wins; after a leader change the new leader removes.
 */
@Timeout(180)
class ShardExpiryTest {
  private static final int SHARDS = 3;
  private static final String T = TestCluster.TABLE;
  private static final long FAR = Duration.ofMinutes(10).toMillis();

  @TempDir
  Path dir;

  private final FakeClock clock = FakeClock.atDefaultStart();
  private TestCluster cluster;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @BeforeEach
  void start() throws Exception {
    cluster = new TestCluster(dir, SHARDS);
    for (String id : cluster.ids()) {
      // the store's default expiry interval (100 ms) paces the shard expiry's ticks too
      cluster.storeOptions(id, StoreOptions.builder().clock(clock).build());
    }
    cluster.startAll();
    cluster.awaitPreferredLeaders();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** Writes through the node that leads {@code key}'s shard, waiting through an election. */
  private void put(String key, String value, PutOptions options) throws InterruptedException {
    byte[] k = b(key);
    ClusterNode leader = cluster.awaitLeader(cluster.layout().shardOfKey(k));
    new ShardedTable(leader, T, Duration.ofSeconds(3)).put(k, b(value), options);
  }

  /**
   * What {@code node} holds of table {@link #T} over all its shards, expired entries included:
   * key to "value v<version> x<expiresAt>".
   */
  private static Map<String, String> physicalContent(ClusterNode node) {
    Map<String, String> out = new TreeMap<>();
    for (int i : node.shardIndexes()) {
      try (Cursor c = node.stateMachine(i).replicatedTable(T).scanIncludingExpired(null, null)) {
        while (c.next()) {
          out.put(s(c.key()), s(c.value()) + " v" + c.version() + " x" + c.expiresAt());
        }
      }
    }
    return out;
  }

  private static Map<String, String> values(Map<String, String> physical) {
    Map<String, String> out = new TreeMap<>();
    physical.forEach((k, v) -> out.put(k, v.substring(0, v.indexOf(" v"))));
    return out;
  }

  /**
   * Waits until every running node physically holds exactly {@code expected} (key to value) in
   * table {@link #T}, and all hold identical entries (versions and expiries included).
   */
  private void awaitEveryReplicaHolds(Map<String, String> expected) throws InterruptedException {
    long deadline = System.nanoTime() + TestCluster.WAIT.toNanos();
    Map<String, Map<String, String>> last = new LinkedHashMap<>();
    while (true) {
      last.clear();
      for (String id : cluster.ids()) {
        ClusterNode n = cluster.node(id);
        if (n != null) {
          last.put(id, physicalContent(n));
        }
      }
      Map<String, String> first = last.values().iterator().next();
      boolean identical = last.values().stream().allMatch(first::equals);
      if (identical && values(first).equals(expected)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        for (Map.Entry<String, Map<String, String>> e : last.entrySet()) {
          assertThat(values(e.getValue())).as("node %s's physical content of table %s", e.getKey(), T)
              .isEqualTo(expected);
        }
        assertThat(last.values()).as("every replica's entries (versions, expiries)").allMatch(first::equals);
      }
      Thread.sleep(50);
    }
  }

  private long removedByAllNodes() {
    long n = 0;
    for (String id : cluster.ids()) {
      if (cluster.node(id) != null) {
        n += cluster.node(id).expiryStats().removed();
      }
    }
    return n;
  }

  @Test
  void expiredEntries_leaveEveryReplica_otherEntriesStay() throws Exception {
    long now = clock.millis();
    Map<String, String> live = new TreeMap<>();
    Map<String, String> all = new TreeMap<>();
    for (int i = 0; i < 150; i++) {
      put("e" + i, "x" + i, PutOptions.defaults().expireAt(now + 200));
      all.put("e" + i, "x" + i);
    }
    for (int i = 0; i < 60; i++) {
      put("k" + i, "v" + i, PutOptions.defaults());
      live.put("k" + i, "v" + i);
    }
    for (int i = 0; i < 30; i++) {
      put("l" + i, "w" + i, PutOptions.defaults().expireAt(now + FAR));
      live.put("l" + i, "w" + i);
    }
    all.putAll(live);
    awaitEveryReplicaHolds(all); // nothing is due yet: every entry is on every replica

    clock.advanceMillis(1_000);

    awaitEveryReplicaHolds(live);
    assertThat(removedByAllNodes()).isGreaterThanOrEqualTo(150);
    for (String id : cluster.ids()) {
      assertThat(cluster.node(id).store().expiryStats().removed())
          .as("the store's own expiry leaves the replicated shard tables alone").isZero();
    }
  }

  @Test
  void refreshBeforeRemoval_keepsTheNewValue() throws Exception {
    long seed = Seeds.seed("ShardExpiryTest.refreshBeforeRemoval");
    Random rnd = new Random(seed);
    Map<String, String> expected = new TreeMap<>();
    // keys to refresh when a pass found them expired, before it removes them: the race's window
    Map<String, Runnable> refreshInWindow = new ConcurrentHashMap<>();
    for (String id : cluster.ids()) {
      cluster.node(id).shardExpiry().beforeRemoval(found -> {
        for (byte[] k : found) {
          Runnable refresh = refreshInWindow.remove(s(k));
          if (refresh != null) {
            refresh.run();
          }
        }
      });
    }
    for (int round = 0; round < 16; round++) {
      long now = clock.millis();
      boolean inWindow = rnd.nextBoolean();
      Map<String, Runnable> refreshes = new LinkedHashMap<>();
      for (int i = 0; i < 30; i++) {
        String key = "r" + round + "-" + i;
        put(key, "old", PutOptions.defaults().expireAt(now + 100));
        if (rnd.nextBoolean()) {
          String value = "new" + round + "-" + i;
          // after the clock moved: either no expiry or a later one
          PutOptions o = rnd.nextBoolean() ? PutOptions.defaults() : PutOptions.defaults().ttlMillis(FAR);
          refreshes.put(key, () -> {
            try {
              put(key, value, o);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new AssertionError(e);
            }
          });
          expected.put(key, value);
        }
      }
      if (inWindow) {
        refreshInWindow.putAll(refreshes);
        clock.advanceMillis(200);
      } else {
        // refreshes racing with the background passes and with passes run from here
        List<Runnable> order = new ArrayList<>(refreshes.values());
        Collections.shuffle(order, rnd);
        int pauseMillis = rnd.nextInt(20);
        Thread writer = new Thread(() -> {
          try {
            Thread.sleep(pauseMillis);
          } catch (InterruptedException e) {
            return;
          }
          order.forEach(Runnable::run);
        });
        clock.advanceMillis(200);
        writer.start();
        for (String id : cluster.ids()) {
          cluster.node(id).expireNow();
        }
        writer.join();
      }
      awaitEveryReplicaHolds(expected);
      assertThat(refreshInWindow).as("seed %d round %d: every key to refresh was found expired", seed, round)
          .isEmpty();
    }
    assertThat(removedByAllNodes()).as("seed %d", seed).isPositive();
  }

  @Test
  void afterLeaderChange_theNewLeaderRemoves_andTheOldOneCatchesUp() throws Exception {
    ClusterNode old = cluster.awaitLeader(0);
    Predicate<String> inShard0 = k -> cluster.layout().shardOfKey(b(k)) == 0;
    long now = clock.millis();
    Map<String, String> live = new TreeMap<>();
    Map<String, String> all = new TreeMap<>();
    int written = 0;
    for (int i = 0; written < 80; i++) {
      String key = "c" + i;
      if (!inShard0.test(key)) {
        continue;
      }
      written++;
      boolean expires = written % 4 != 0;
      put(key, "v" + i, expires ? PutOptions.defaults().expireAt(now + 200) : PutOptions.defaults());
      all.put(key, "v" + i);
      if (!expires) {
        live.put(key, "v" + i);
      }
    }
    awaitEveryReplicaHolds(all);

    String oldId = old.nodeId();
    cluster.stop(oldId);
    ClusterNode next = cluster.awaitLeader(0);
    assertThat(next.nodeId()).isNotEqualTo(oldId);
    clock.advanceMillis(1_000);

    awaitEveryReplicaHolds(live);
    assertThat(next.expiryStats().removed()).isGreaterThanOrEqualTo(60);

    cluster.start(oldId); // it applies the new leader's removes from the log
    awaitEveryReplicaHolds(live);
  }
}
