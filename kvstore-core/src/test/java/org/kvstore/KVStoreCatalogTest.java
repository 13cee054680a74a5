package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.FaultInjectingFileSystem;

class KVStoreCatalogTest {
  @TempDir Path dir;

  private KVStore open() {
    return KVStore.open(dir, StoreOptions.defaults());
  }

  @Test
  void createAndList_databasesAndTables_surviveReopen() {
    try (KVStore store = open()) {
      store.createDB("b");
      store.createDB("a");
      store.createTable("a", "t2", "memory", new Properties());
      store.createTable("a", "t1", "MEMORY", null);
      assertThat(store.listDBs()).containsExactly("a", "b");
      assertThat(store.listTables("a")).containsExactly("t1", "t2");
      assertThat(store.listTables("b")).isEmpty();
      TableInfo info = store.tableInfo("a", "t1");
      assertThat(info.engine()).isEqualTo("memory");
      assertThat(info.durability()).isNull();
    }
    try (KVStore store = open()) {
      assertThat(store.listDBs()).containsExactly("a", "b");
      assertThat(store.listTables("a")).containsExactly("t1", "t2");
    }
  }

  @Test
  void names_outsideTheAllowedSet_areRejectedWithTheReason() {
    try (KVStore store = open()) {
      assertThatThrownBy(() -> store.createDB("")).isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("database name").hasMessageContaining("1 to 64");
      assertThatThrownBy(() -> store.createDB("x".repeat(65))).isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("was 65");
      assertThatThrownBy(() -> store.createDB("..")).isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("reserved");
      assertThatThrownBy(() -> store.createDB(".")).isInstanceOf(InvalidArgumentException.class);
      assertThatThrownBy(() -> store.createDB("../escape")).isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("'/' at position 2");
      assertThatThrownBy(() -> store.createDB("a b")).isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("' ' at position 1");
      assertThatThrownBy(() -> store.createDB(null)).isInstanceOf(InvalidArgumentException.class);
      store.createDB("ok_name-1.2");
      assertThatThrownBy(() -> store.createTable("ok_name-1.2", "t/x", "memory", null))
          .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("table name");
      assertThat(store.listDBs()).containsExactly("ok_name-1.2");
    }
    assertThat(dir.resolve("escape")).doesNotExist();
    assertThat(dir.getParent().resolve("escape")).doesNotExist();
  }

  @Test
  void missingAndDuplicate_databasesAndTables_getSpecificErrors() {
    try (KVStore store = open()) {
      assertThatThrownBy(() -> store.createTable("nodb", "t", "memory", null))
          .isInstanceOf(NoSuchDatabaseException.class).hasMessage("no such database 'nodb'");
      store.createDB("db");
      assertThatThrownBy(() -> store.createDB("db")).isInstanceOf(AlreadyExistsException.class)
          .hasMessage("database 'db' already exists");
      assertThatThrownBy(() -> store.get("db", "t", "k")).isInstanceOf(NoSuchTableException.class)
          .hasMessage("no such table 't' in database 'db'");
      assertThatThrownBy(() -> store.get("nodb", "t", "k")).isInstanceOf(NoSuchDatabaseException.class);
      store.createTable("db", "t", "memory", null);
      assertThatThrownBy(() -> store.createTable("db", "t", "memory", null))
          .isInstanceOf(AlreadyExistsException.class)
          .hasMessage("table 't' already exists in database 'db'");
      assertThatThrownBy(() -> store.dropTable("db", "nope")).isInstanceOf(NoSuchTableException.class);
      assertThatThrownBy(() -> store.dropDB("nope")).isInstanceOf(NoSuchDatabaseException.class);
      assertThatThrownBy(() -> store.listTables("nope")).isInstanceOf(NoSuchDatabaseException.class);
    }
  }

  @Test
  void unknownEngine_isRejectedWithTheAvailableEngines() {
    try (KVStore store = open()) {
      store.createDB("db");
      assertThatThrownBy(() -> store.createTable("db", "t", "rocks", null))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("unknown engine 'rocks'")
          .hasMessageContaining("memory");
      assertThat(store.listTables("db")).isEmpty();
    }
  }

  @Test
  void unknownOrBadProperty_isRejectedWithTheValidProperties() {
    try (KVStore store = open()) {
      store.createDB("db");
      Properties p = new Properties();
      p.put("no.such.property", 5);
      assertThatThrownBy(() -> store.createTable("db", "t", "memory", p))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("unknown property 'no.such.property' for engine memory")
          .hasMessageContaining("valid properties: (none)");
      assertThat(store.listTables("db")).isEmpty();
    }
  }

  @Test
  void dropTable_removesDataAndTheHandleFails() {
    try (KVStore store = open()) {
      store.createDB("db");
      store.createTable("db", "t", "memory", null);
      Table t = store.table("db", "t");
      t.put("k", "v".getBytes());
      Cursor c = t.scan(null, null, 0);
      store.dropTable("db", "t");
      assertThatThrownBy(() -> t.get("k")).isInstanceOf(NoSuchTableException.class);
      assertThatThrownBy(c::next).isInstanceOf(NoSuchTableException.class);
      c.close();
      store.createTable("db", "t", "memory", null);
      assertThat(store.get("db", "t", "k")).isNull();
      assertThat(store.tableInfo("db", "t").id()).isNotEqualTo(1L);
    }
  }

  @Test
  void dropDB_dropsItsTables() throws Exception {
    try (KVStore store = open()) {
      store.createDB("db");
      store.createTable("db", "t", "memory", null);
      Path tableDir = store.tableInfo("db", "t").directory();
      assertThat(tableDir).exists();
      store.dropDB("db");
      assertThat(store.listDBs()).isEmpty();
      assertThat(tableDir).doesNotExist();
      assertThatThrownBy(() -> store.table("db", "t")).isInstanceOf(NoSuchDatabaseException.class);
    }
  }

  @Test
  void secondOpenOfTheSameDirectory_failsWithALockError() {
    try (KVStore store = open()) {
      assertThatThrownBy(this::open)
          .isInstanceOf(StoreLockedException.class)
          .hasMessageContaining(dir.toString())
          .hasMessageContaining("in use");
    }
    try (KVStore again = open()) {
      assertThat(again.listDBs()).isEmpty();
    }
  }

  @Test
  void closedStore_rejectsCalls() {
    KVStore store = open();
    store.close();
    store.close();
    assertThatThrownBy(store::listDBs).isInstanceOf(StoreClosedException.class);
  }

  @Test
  void orphanTableDirectory_isRemovedOnOpen() throws Exception {
    try (KVStore store = open()) {
      store.createDB("db");
    }
    Path orphan = dir.resolve("tables").resolve("99");
    Files.createDirectories(orphan);
    Files.writeString(orphan.resolve("junk"), "left by a crash");
    try (KVStore store = open()) {
      assertThat(orphan).doesNotExist();
      assertThat(store.listDBs()).containsExactly("db");
    }
  }

  @Test
  void catalogWrite_crashAtEveryStep_leavesOldOrNewCatalog() {
    for (int crashAt = 0; crashAt < 8; crashAt++) {
      Path d = dir.resolve("crash" + crashAt);
      try (KVStore store = KVStore.open(d, StoreOptions.defaults())) {
        store.createDB("before");
      }
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      KVStore store = KVStore.open(d, StoreOptions.builder().fileSystem(fs).build());
      fs.crashAfter(crashAt);
      boolean created;
      try {
        store.createDB("after");
        created = true;
      } catch (KVStoreException e) {
        created = false;
      }
      fs.heal();
      try {
        store.close();
      } catch (KVStoreException ignored) {
        // the crashed store may fail to close cleanly; what matters is what reopens
      }
      try (KVStore reopened = KVStore.open(d, StoreOptions.defaults())) {
        assertThat(reopened.listDBs()).as("crash after %d ops", crashAt).contains("before");
        if (created) {
          assertThat(reopened.listDBs()).as("crash after %d ops", crashAt).contains("after");
        }
      }
    }
  }

  @Test
  void catalogFileDamage_failsTheOpenNamingTheFile() throws Exception {
    try (KVStore store = open()) {
      store.createDB("db");
    }
    Path catalog = dir.resolve("CATALOG");
    byte[] bytes = Files.readAllBytes(catalog);
    bytes[bytes.length - 3] ^= 0x10;
    Files.write(catalog, bytes);
    assertThatThrownBy(this::open)
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(catalog.toString())
        .hasMessageContaining("checksum mismatch");
  }

  @Test
  void failedCatalogSync_failsTheChangeAndTheStoreStaysUsable() {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().fileSystem(fs).build())) {
      fs.failSyncs(p -> p.getFileName().toString().startsWith("CATALOG"));
      assertThatThrownBy(() -> store.createDB("db"))
          .isInstanceOf(StorageIOException.class)
          .hasMessageContaining("CATALOG")
          .hasMessageContaining("EIO");
      assertThat(store.listDBs()).isEmpty();
    }
  }
}
