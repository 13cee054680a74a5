package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.spi.Mutation;
import org.kvstore.testkit.SnapshotTestEngine;

/** Tables whose writes come from a replication log: {@link ReplicatedTable}. */
class ReplicatedTableTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private KVStore open() {
    return KVStore.open(dir, StoreOptions.builder().checkpointInterval(Duration.ZERO).build());
  }

  /** A replicated table {@code db.name} of the test engine (the database created when missing). */
  static ReplicatedTable create(KVStore store, String name) {
    if (!store.listDBs().contains("db")) {
      store.createDB("db");
    }
    Properties p = new Properties();
    p.setProperty("replicated", "true");
    store.createTable("db", name, SnapshotTestEngine.NAME, p);
    return store.replicatedTable("db", name);
  }

  @Test
  void apply_atGivenIndex_isReadableWithThatVersion_andExpiry() {
    try (KVStore store = open()) {
      ReplicatedTable t = create(store, "t");
      t.apply(7, List.of(Mutation.put(b("a"), b("1")), Mutation.put(b("b"), b("2"), 4_000_000_000_000L)));
      t.apply(9, List.of(Mutation.remove(b("a"))));
      assertThat(t.appliedLsn()).isEqualTo(9);
      assertThat(t.table().get(b("a"))).isNull();
      Entry e = t.table().getEntry(b("b"));
      assertThat(e.version()).isEqualTo(7);
      assertThat(e.expiresAt()).isEqualTo(4_000_000_000_000L);
    }
  }

  @Test
  void apply_atOrBelowAppliedIndex_isRefused() {
    try (KVStore store = open()) {
      ReplicatedTable t = create(store, "t");
      t.apply(5, List.of(Mutation.put(b("a"), b("1"))));
      assertThatThrownBy(() -> t.apply(5, List.of(Mutation.put(b("a"), b("2")))))
          .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("not above the applied index 5");
      assertThat(t.table().get(b("a"))).isEqualTo(b("1"));
    }
  }

  @Test
  void tableWrites_onReplicatedTable_areRefused() {
    try (KVStore store = open()) {
      ReplicatedTable t = create(store, "t");
      assertThatThrownBy(() -> t.table().put(b("a"), b("1")))
          .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("is replicated");
      assertThatThrownBy(() -> store.remove("db", "t", b("a")))
          .isInstanceOf(InvalidArgumentException.class);
    }
  }

  @Test
  void replicatedTable_ofOrdinaryTable_isRefused_andItsPropertiesStayAsBefore() {
    try (KVStore store = open()) {
      store.createDB("db");
      store.createTable("db", "plain", SnapshotTestEngine.NAME, new Properties());
      assertThatThrownBy(() -> store.replicatedTable("db", "plain"))
          .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("not replicated");
      assertThat(store.tableInfo("db", "plain").properties()).doesNotContainKey("replicated");
      create(store, "r");
      assertThat(store.tableInfo("db", "r").properties()).containsEntry("replicated", "true");
    }
  }

  @Test
  void reopen_keepsCheckpointedIndex_andLogsNothingForTheTable() throws Exception {
    try (KVStore store = open()) {
      ReplicatedTable t = create(store, "t");
      t.apply(100, List.of(Mutation.put(b("a"), b("1"))));
      assertThat(t.checkpoint()).isEqualTo(100);
      t.apply(101, List.of(Mutation.put(b("b"), new byte[20_000])));
      t.apply(102, List.of()); // an entry for another table of the group: the index advances
      assertThat(t.appliedLsn()).isEqualTo(102);
    }
    try (Stream<Path> wal = Files.list(dir.resolve("wal"))) {
      long bytes = wal.mapToLong(p -> p.toFile().length()).sum();
      assertThat(bytes).as("log bytes: no record for a replicated table").isLessThan(20_000);
    }
    try (KVStore store = open()) {
      ReplicatedTable t = store.replicatedTable("db", "t");
      // close checkpoints every table: the state persisted at close is complete up to 102
      assertThat(t.persistedLsn()).isEqualTo(102);
      assertThat(t.appliedLsn()).isEqualTo(102);
      assertThat(t.table().get(b("b"))).hasSize(20_000);
    }
  }

  @Test
  void checkpoint_recordsTheTablesOwnIndex_notTheStoresLsn() {
    try (KVStore store = open()) {
      store.createDB("db");
      store.createTable("db", "plain", SnapshotTestEngine.NAME, new Properties());
      for (int i = 0; i < 50; i++) {
        store.put("db", "plain", b("k" + i), b("v"));
      }
      ReplicatedTable t = create(store, "t");
      t.apply(3, List.of(Mutation.put(b("a"), b("1"))));
      assertThat(t.checkpoint()).isEqualTo(3);
      store.checkpoint();
      assertThat(t.persistedLsn()).isEqualTo(3);
    }
  }

  @Test
  void reopen_afterTornLogTail_isNotBlockedByAReplicatedTableAheadOfTheLog() throws Exception {
    org.kvstore.io.FaultInjectingFileSystem fs = new org.kvstore.io.FaultInjectingFileSystem();
    StoreOptions options = StoreOptions.builder().fileSystem(fs).checkpointInterval(Duration.ZERO).build();
    KVStore store = KVStore.open(dir, options);
    store.createDB("db");
    store.createTable("db", "plain", SnapshotTestEngine.NAME, new Properties());
    ReplicatedTable t = create(store, "r");
    t.apply(1000, List.of(Mutation.put(b("a"), b("1"))));
    t.checkpoint(); // persisted at Raft index 1000, far above the store's own LSNs
    store.put("db", "plain", b("k"), b("v"));
    fs.crashAfter(0);
    try {
      store.close();
    } catch (KVStoreException expected) {
      // the crash: nothing more reaches the disk
    }
    fs.heal();
    Path segment;
    try (Stream<Path> wal = Files.list(dir.resolve("wal"))) {
      segment = wal.sorted().reduce((a, c) -> c).orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(segment);
    Files.write(segment, java.util.Arrays.copyOf(bytes, bytes.length - 5)); // a torn last record
    try (KVStore again = open()) {
      assertThat(again.replicatedTable("db", "r").persistedLsn()).isEqualTo(1000);
      assertThat(again.get("db", "r", b("a"))).isEqualTo(b("1"));
    }
  }

  @Test
  void expireNow_leavesReplicatedTablesToTheirLog() {
    org.kvstore.testkit.FakeClock clock = new org.kvstore.testkit.FakeClock(1_000_000L);
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().clock(clock)
        .checkpointInterval(Duration.ZERO).build())) {
      ReplicatedTable t = create(store, "t");
      t.apply(1, List.of(Mutation.put(b("a"), b("1"), 1_000_500L)));
      clock.set(2_000_000L);
      assertThat(store.expireNow()).isZero();
      assertThat(t.table().get(b("a"))).as("expired: hidden from reads").isNull();
      assertThat(t.appliedLsn()).isEqualTo(1);
    }
  }

  @Test
  void scanIncludingExpired_showsExpiredEntries_andTakeEarliestExpiryApplied_startsOver() {
    org.kvstore.testkit.FakeClock clock = new org.kvstore.testkit.FakeClock(1_000_000L);
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().clock(clock)
        .checkpointInterval(Duration.ZERO).build())) {
      ReplicatedTable t = create(store, "t");
      assertThat(t.takeEarliestExpiryApplied()).isEqualTo(Long.MAX_VALUE);
      t.apply(1, List.of(Mutation.put(b("a"), b("1"), 1_000_500L), Mutation.put(b("b"), b("2")),
          Mutation.put(b("c"), b("3"), 1_000_900L)));
      assertThat(t.takeEarliestExpiryApplied()).isEqualTo(1_000_500L);
      assertThat(t.takeEarliestExpiryApplied()).as("starts over").isEqualTo(Long.MAX_VALUE);
      clock.set(2_000_000L);
      try (Cursor c = t.scanIncludingExpired(null, null)) {
        assertThat(c.next()).isTrue();
        assertThat(c.key()).isEqualTo(b("a"));
        assertThat(c.expiresAt()).isEqualTo(1_000_500L);
        assertThat(c.next()).isTrue();
        assertThat(c.key()).isEqualTo(b("b"));
        assertThat(c.expiresAt()).isEqualTo(Entry.NO_EXPIRY);
        assertThat(c.next()).isTrue();
        assertThat(c.key()).isEqualTo(b("c"));
        assertThat(c.next()).isFalse();
      }
      try (Cursor c = t.table().scan(null, null, 0)) {
        assertThat(c.next()).isTrue();
        assertThat(c.key()).as("an ordinary scan hides expired entries").isEqualTo(b("b"));
        assertThat(c.next()).isFalse();
      }
    }
  }
}
