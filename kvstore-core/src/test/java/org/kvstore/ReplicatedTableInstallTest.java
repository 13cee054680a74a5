package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.spi.Mutation;
import org.kvstore.testkit.SnapshotTestEngine;

/**
 * A replica that fell behind its replication log takes a copy of another replica's table:
 * {@link KVStore#backupReplicatedTable} and {@link KVStore#installReplicatedTable}.
 */
class ReplicatedTableInstallTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static KVStore open(Path d) {
    return KVStore.open(d, StoreOptions.builder().checkpointInterval(Duration.ZERO).build());
  }

  private static ReplicatedTable create(KVStore store, String name) {
    return ReplicatedTableTest.create(store, name);
  }

  /** Applies log entries {@code from..to} of a seeded log to {@code t} and to {@code model}. */
  private static void applyLog(ReplicatedTable t, long seed, long from, long to, Map<String, String> model) {
    for (long index = from; index <= to; index++) {
      Random rnd = new Random(seed * 1_000_003 + index); // entry i is the same on every replica
      List<Mutation> batch = new ArrayList<>();
      for (int i = rnd.nextInt(4); i >= 0; i--) {
        String k = "k" + rnd.nextInt(40);
        if (rnd.nextInt(5) == 0) {
          batch.add(Mutation.remove(b(k)));
          model.remove(k);
        } else {
          String v = "v" + index + "-" + i;
          batch.add(Mutation.put(b(k), b(v)));
          model.put(k, v);
        }
      }
      t.apply(index, batch);
    }
  }

  private static Map<String, String> contents(Table t) {
    Map<String, String> out = new TreeMap<>();
    try (Cursor c = t.scan(null, null, Integer.MAX_VALUE)) {
      while (c.next()) {
        out.put(new String(c.key(), StandardCharsets.UTF_8), new String(c.value(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  @Test
  void install_ofACopyFromAReplicaAhead_holdsItsState_andTakesTheLogAfterIt() throws Exception {
    long seed = new Random().nextLong();
    System.out.println("ReplicatedTableInstallTest seed " + seed);
    Map<String, String> leaderModel = new TreeMap<>();
    Path copy = dir.resolve("copy");
    try (KVStore leader = open(dir.resolve("leader"))) {
      ReplicatedTable t = create(leader, "t");
      applyLog(t, seed, 1, 200, leaderModel);
      assertThat(leader.backupReplicatedTable("db", "t", copy)).isEqualTo(200);
      applyLog(t, seed, 201, 210, new TreeMap<>()); // the leader goes on; the copy stays at 200
      assertThatThrownBy(() -> leader.backupReplicatedTable("db", "t", copy))
          .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("not empty");
    }
    Map<String, String> followerModel = new TreeMap<>();
    Path followerDir = dir.resolve("follower");
    try (KVStore follower = open(followerDir)) {
      ReplicatedTable behind = create(follower, "t");
      create(follower, "other").apply(3, List.of(Mutation.put(b("x"), b("y"))));
      applyLog(behind, seed, 1, 20, followerModel);
      ReplicatedTable installed = follower.installReplicatedTable("db", "t", copy);
      assertThat(installed.persistedLsn()).isEqualTo(200);
      assertThat(installed.appliedLsn()).isEqualTo(200);
      assertThat(contents(installed.table())).as("seed %d", seed).isEqualTo(leaderModel);
      assertThat(follower.replicatedTable("db", "t")).isSameAs(installed);
      assertThatThrownBy(() -> behind.table().get(b("k1")))
          .isInstanceOf(StoreClosedException.class).hasMessageContaining("db.t").hasMessageContaining("replaced");
      assertThat(follower.get("db", "other", b("x"))).isEqualTo(b("y"));
      // the log goes on after the copy's index
      applyLog(installed, seed, 201, 210, leaderModel);
      assertThatThrownBy(() -> installed.apply(150, List.of()))
          .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("not above the applied index 210");
      installed.checkpoint();
    }
    assertThat(Files.exists(copy.resolve("snapshot"))).as("the source is left as it was").isTrue();
    try (KVStore reopened = open(followerDir)) {
      ReplicatedTable t = reopened.replicatedTable("db", "t");
      assertThat(t.persistedLsn()).isEqualTo(210);
      assertThat(contents(t.table())).as("seed %d", seed).isEqualTo(leaderModel);
      assertThat(reopened.get("db", "other", b("x"))).isEqualTo(b("y"));
      assertThat(Files.list(followerDir.resolve("tables")).count()).as("no directory of the old table is left")
          .isEqualTo(2);
    }
  }

  @Test
  void install_crashAtEveryStep_reopensWithTheOldStateOrTheNew_neverAMix() throws Exception {
    Map<String, String> newModel = new TreeMap<>();
    Path copy = dir.resolve("copy");
    try (KVStore leader = open(dir.resolve("leader"))) {
      ReplicatedTable t = create(leader, "t");
      applyLog(t, 7, 1, 100, newModel);
      leader.backupReplicatedTable("db", "t", copy);
    }
    boolean sawOld = false;
    boolean sawNew = false;
    for (int step = 0; step < 40 && !sawNew; step++) {
      Path d = dir.resolve("step" + step);
      Map<String, String> oldModel = new TreeMap<>();
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      KVStore store = KVStore.open(d, StoreOptions.builder().fileSystem(fs).checkpointInterval(Duration.ZERO).build());
      ReplicatedTable old = create(store, "t");
      applyLog(old, 7, 1, 10, oldModel);
      old.checkpoint();
      fs.crashAfter(step);
      try {
        store.installReplicatedTable("db", "t", copy);
      } catch (KVStoreException e) {
        // crashed mid-install
      }
      fs.crashAfter(0);
      try {
        store.close();
      } catch (KVStoreException expected) {
        // every file operation fails after the crash point
      }
      fs.heal();
      try (KVStore reopened = open(d)) {
        ReplicatedTable t = reopened.replicatedTable("db", "t");
        if (t.persistedLsn() == 100) {
          assertThat(contents(t.table())).as("step %d", step).isEqualTo(newModel);
          sawNew = true;
        } else {
          assertThat(t.persistedLsn()).as("step %d", step).isEqualTo(10);
          assertThat(contents(t.table())).as("step %d", step).isEqualTo(oldModel);
          sawOld = true;
        }
        assertThat(Files.list(d.resolve("tables")).count()).as("step %d: orphan directories removed", step)
            .isEqualTo(1);
      }
    }
    assertThat(sawOld).isTrue();
    assertThat(sawNew).as("some crash point late enough to keep the install").isTrue();
  }

  @Test
  void install_andBackup_ofAnOrdinaryTable_areRefused() {
    try (KVStore store = open(dir.resolve("s"))) {
      store.createDB("db");
      store.createTable("db", "plain", SnapshotTestEngine.NAME, new Properties());
      assertThatThrownBy(() -> store.installReplicatedTable("db", "plain", dir.resolve("none")))
          .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("db.plain is not replicated");
      assertThatThrownBy(() -> store.backupReplicatedTable("db", "plain", dir.resolve("none")))
          .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("db.plain is not replicated");
    }
  }

  @Test
  void install_fromAMissingCopy_failsNamingIt_andKeepsTheTable() {
    try (KVStore store = open(dir.resolve("s"))) {
      ReplicatedTable t = create(store, "t");
      t.apply(5, List.of(Mutation.put(b("a"), b("1"))));
      Path missing = dir.resolve("no-such-copy");
      assertThatThrownBy(() -> store.installReplicatedTable("db", "t", missing))
          .isInstanceOf(StorageIOException.class).hasMessageContaining(missing.toString());
      assertThat(store.replicatedTable("db", "t")).isSameAs(t);
      assertThat(t.table().get(b("a"))).isEqualTo(b("1"));
    }
  }
}
