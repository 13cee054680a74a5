package org.kvstore.server.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.testkit.FakeClock;

/**
 * A table for tests of the command semantics: table 0 of a fresh keyspace on the {@code memory}
 * engine, in a store of its own (durability none) under a temporary folder, opened before each test
 * and closed and deleted after it. The store's clock is a {@link FakeClock} the test moves (expiry
 * without sleeping). Register it with {@code @RegisterExtension}.
 *
 * <p>Thread safety: confined to the test's thread.
 */
final class ScratchTable implements BeforeEachCallback, AfterEachCallback {
  private Path dir;
  private KVStore store;
  private Table table;
  private FakeClock clock;

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory("kvstore-command-test");
    clock = FakeClock.atDefaultStart();
    store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE).clock(clock).build());
    Keyspace keyspace = new Keyspace(store, "memory", 1);
    keyspace.ensureDefaults();
    table = keyspace.indexTable(0);
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    store.close();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** The store's clock. */
  FakeClock clock() {
    return clock;
  }

  /** The table of the running test. */
  Table table() {
    return table;
  }
}
