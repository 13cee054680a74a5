package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link KVStore#destroy}: deletes a closed store, never an open one or a directory that is not a store's. */
class KVStoreDestroyTest {
  @TempDir Path tmp;

  private Path storeWithAKey() {
    Path dir = tmp.resolve("store");
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().build())) {
      store.createDB("db");
      store.createTable("db", "t", "memory", new java.util.Properties());
      store.put("db", "t", "k", new byte[] {1});
    }
    return dir;
  }

  @Test
  void destroy_closedStore_deletesTheDirectory() {
    Path dir = storeWithAKey();
    KVStore.destroy(dir);
    assertThat(dir).doesNotExist();
  }

  @Test
  void destroy_openStore_refusedAndNothingDeleted() {
    Path dir = storeWithAKey();
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().build())) {
      assertThatThrownBy(() -> KVStore.destroy(dir)).isInstanceOf(StoreLockedException.class);
      assertThat(dir.resolve("LOCK")).exists();
      store.put("db", "t", "k2", new byte[] {2});
      assertThat(store.get("db", "t", "k2")).containsExactly(2);
    }
  }

  @Test
  void destroy_directoryThatIsNotAStore_refusedAndKept() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("photos"));
    Path photo = Files.writeString(dir.resolve("cat.jpg"), "meow");
    assertThatThrownBy(() -> KVStore.destroy(dir)).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("not a store's directory");
    assertThat(photo).exists();
  }

  @Test
  void destroy_missingOrEmptyDirectory_noErrorAndGone() throws Exception {
    KVStore.destroy(tmp.resolve("missing"));
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    KVStore.destroy(empty);
    assertThat(empty).doesNotExist();
  }
}
