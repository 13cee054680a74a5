package org.kvstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.PreconditionFailedException;
import org.kvstore.Precondition;
import org.kvstore.PutOptions;
import org.kvstore.WriteBatch;
import org.kvstore.WriteResult;
import org.kvstore.cluster.slots.HashSlot;

/**
 * {@link ShardedTable} on three nodes and three shards in one JVM: the {@link org.kvstore.Table}
 * contract routed by hash slot, redirects from nodes that do not lead a key's shard, atomic batches
 * only within one shard, linearizable reads on followers, scans of the node's own shards.
 */
@Timeout(120)
class ShardedTableTest {
  private static final int SHARDS = 3;
  private static final String T = TestCluster.TABLE;

  @TempDir
  Path dir;

  private TestCluster cluster;
  private final Map<String, ShardedTable> tables = new TreeMap<>();

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @BeforeEach
  void start() throws Exception {
    cluster = new TestCluster(dir, SHARDS);
    cluster.startAll();
    for (int i = 0; i < SHARDS; i++) {
      cluster.awaitLeader(i);
    }
    for (String id : cluster.ids()) {
      tables.put(id, new ShardedTable(cluster.node(id), T, Duration.ofSeconds(3)));
    }
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** The table of the node that leads {@code key}'s shard, found by following one redirect. */
  private ShardedTable leaderTableOf(byte[] key) {
    ShardedTable any = tables.values().iterator().next();
    try {
      any.leaderOf(HashSlot.of(key));
      return any;
    } catch (SlotMovedException e) {
      assertThat(e.slot()).isEqualTo(HashSlot.of(key));
      return tables.get(e.nodeId());
    }
  }

  private ShardedTable followerTableOf(byte[] key) {
    ShardedTable leader = leaderTableOf(key);
    return tables.values().stream().filter(t -> t != leader).findFirst().orElseThrow();
  }

  /** A key of each shard. */
  private List<byte[]> keyPerShard() {
    List<byte[]> keys = new ArrayList<>();
    ClusterLayout layout = cluster.layout();
    for (int shard = 0; shard < SHARDS; shard++) {
      for (int i = 0; ; i++) {
        byte[] k = b("key-" + i);
        if (layout.shardOfKey(k) == shard) {
          keys.add(k);
          break;
        }
      }
    }
    return keys;
  }

  @Test
  void writesOnTheLeader_redirectedElsewhere_readableOnEveryReplicaWithTheRaftIndexAsVersion() {
    for (byte[] k : keyPerShard()) {
      ShardedTable follower = followerTableOf(k);
      assertThatThrownBy(() -> follower.put(k, b("v")))
          .isInstanceOfSatisfying(SlotMovedException.class, e -> {
            assertThat(e.slot()).isEqualTo(HashSlot.of(k));
            assertThat(tables.get(e.nodeId())).isSameAs(leaderTableOf(k));
          });
      WriteResult w = leaderTableOf(k).put(k, b("v1"), PutOptions.defaults());
      assertThat(w.applied()).isTrue();
      for (ShardedTable t : tables.values()) {
        Entry e = t.getEntry(k);
        assertThat(e.value()).isEqualTo(b("v1"));
        assertThat(e.version()).isEqualTo(w.version());
      }
    }
  }

  @Test
  void conditionalWritesExpiryAndRemoves_followTheTableContract() {
    byte[] k = b("cond");
    ShardedTable t = leaderTableOf(k);
    assertThat(t.put(k, b("a"), PutOptions.defaults().ifPresent()).applied()).isFalse();
    WriteResult first = t.put(k, b("a"), PutOptions.defaults().ifAbsent());
    assertThat(first.applied()).isTrue();
    assertThat(t.put(k, b("b"), PutOptions.defaults().ifAbsent()).applied()).isFalse();
    assertThat(t.put(k, b("b"), PutOptions.defaults().ifVersion(first.version() + 1000)).applied()).isFalse();
    WriteResult second = t.put(k, b("b"), PutOptions.defaults().ifVersion(first.version()).returnPrevious());
    assertThat(second.applied()).isTrue();
    assertThat(second.previous().value()).isEqualTo(b("a"));

    long later = System.currentTimeMillis() + 3_600_000;
    assertThat(t.expireAt(k, later)).isTrue();
    t.put(k, b("c"), PutOptions.defaults().keepExpiry());
    assertThat(t.getEntry(k).expiresAt()).isEqualTo(later);
    assertThat(t.persist(k)).isTrue();
    assertThat(t.getEntry(k).hasExpiry()).isFalse();
    assertThat(t.persist(k)).isFalse();

    assertThat(t.remove(k, Precondition.version(1)).applied()).isFalse();
    assertThat(t.remove(k)).isTrue();
    assertThat(t.remove(k)).isFalse();
    assertThat(t.get(k)).isNull();
    assertThat(t.expireAt(k, later)).isFalse();

    t.put(k, b("gone"));
    assertThat(t.expireAt(k, 1)).as("a past time removes the key").isTrue();
    assertThat(t.get(k)).isNull();
  }

  @Test
  void batches_atomicWithinAShard_refusedAcrossShards() {
    List<byte[]> keys = keyPerShard();
    ShardedTable t = leaderTableOf(keys.get(0));
    assertThatThrownBy(() -> t.write(new WriteBatch().put(keys.get(0), b("x")).put(keys.get(1), b("y"))))
        .isInstanceOf(CrossSlotException.class).hasMessageContaining("different shards");
    assertThat(tables.get(cluster.ids().get(0)).get(keys.get(1))).isNull();

    byte[] a = b("{user7}.name");
    byte[] c = b("{user7}.mail");
    ShardedTable owner = leaderTableOf(a);
    owner.write(new WriteBatch().put(a, b("ann")).put(c, b("ann@example.com")));
    assertThat(owner.get(a)).isEqualTo(b("ann"));
    assertThat(owner.get(c)).isEqualTo(b("ann@example.com"));

    // A failed precondition writes nothing of the batch.
    assertThatThrownBy(() -> owner.write(new WriteBatch()
        .put(a, b("bob"))
        .put(c, b("bob@example.com"), PutOptions.defaults().ifAbsent())))
        .isInstanceOf(PreconditionFailedException.class);
    assertThat(owner.get(a)).isEqualTo(b("ann"));

    owner.update(List.of(a, c), values -> new WriteBatch()
        .put(a, b(new String(values[0], StandardCharsets.UTF_8) + "!"))
        .remove(c));
    assertThat(owner.get(a)).isEqualTo(b("ann!"));
    assertThat(owner.get(c)).isNull();
    assertThatThrownBy(() -> owner.update(keys, v -> null)).isInstanceOf(CrossSlotException.class);
    assertThatThrownBy(() -> ShardedTable.commonSlot(List.of(b("{x}1"), b("{y}1"))))
        .isInstanceOf(CrossSlotException.class);
    assertThat(ShardedTable.commonSlot(List.of(b("{x}1"), b("{x}2")))).isEqualTo(HashSlot.of(b("x")));
  }

  @Test
  void multiGetAndScans_readEveryShardOrTheNodesOwn() {
    TreeMap<String, String> model = new TreeMap<>();
    for (int i = 0; i < 60; i++) {
      byte[] k = b(String.format("k%03d", i));
      leaderTableOf(k).put(k, b("v" + i));
      model.put(String.format("k%03d", i), "v" + i);
    }
    byte[][] keys = new byte[61][];
    for (int i = 0; i < 60; i++) {
      keys[i] = b(String.format("k%03d", i));
    }
    keys[60] = b("absent");
    for (ShardedTable t : tables.values()) {
      byte[][] values = new byte[61][];
      t.multiGetReadOnly(keys, values);
      for (int i = 0; i < 60; i++) {
        assertThat(values[i]).isEqualTo(b("v" + i));
      }
      assertThat(values[60]).isNull();
    }

    TreeMap<String, String> union = new TreeMap<>();
    for (ShardedTable t : tables.values()) {
      List<String> seen = new ArrayList<>();
      try (Cursor c = t.scan(null, null, 0)) {
        while (c.next()) {
          String k = new String(c.key(), StandardCharsets.UTF_8);
          seen.add(k);
          assertThat(union.put(k, new String(c.value(), StandardCharsets.UTF_8)))
              .as("key %s listed by one node only", k).isNull();
          assertThat(leaderTableOf(c.key())).as("key %s listed by its shard's leader", k).isSameAs(t);
        }
      }
      assertThat(seen).isSorted();
      try (Cursor c = t.scan(null, null, 2)) {
        int n = 0;
        while (c.next()) {
          n++;
        }
        assertThat(n).isLessThanOrEqualTo(2);
      }
    }
    assertThat(union).isEqualTo(model);
  }

  @Test
  void leaderStopped_writesOnTheOthersWaitForTheElectionThenSucceedOrRedirect() throws Exception {
    byte[] k = keyPerShard().get(0);
    ShardedTable old = leaderTableOf(k);
    String oldId = tables.entrySet().stream().filter(e -> e.getValue() == old).findFirst().orElseThrow().getKey();
    old.put(k, b("before"));
    tables.remove(oldId);
    cluster.stop(oldId);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    boolean written = false;
    while (!written && System.nanoTime() < deadline) {
      for (Map.Entry<String, ShardedTable> e : tables.entrySet()) {
        try {
          e.getValue().put(k, b("after"));
          written = true;
          break;
        } catch (SlotMovedException moved) {
          // the first tries may name the stopped leader until the followers time out
        } catch (ClusterDownException down) {
          // no leader yet within the wait
        }
      }
    }
    assertThat(written).isTrue();
    for (ShardedTable t : tables.values()) {
      assertThat(t.get(k)).isEqualTo(b("after"));
    }
  }
}
