package org.kvstore.server.formats;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.KVStore;
import org.kvstore.PutOptions;
import org.kvstore.StoreOptions;
import org.kvstore.Table;

/**
 * A store written by the code before versions and expiry (WAL, SSTable and B+tree page format
 * version 1; the directory {@code formats/v1-store} and the program that wrote it,
 * {@code formats/MakeV1Store.java.txt}) opens and works: flushed data, data only in the log (the
 * writer halted without closing), removes and batches are all there with version 0 and no expiry,
 * and new writes, with expiries, go on top and survive a reopen.
 */
class OldFormatStoreTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  private Path oldStore() throws IOException, URISyntaxException {
    Path source = Paths.get(getClass().getResource("/formats/v1-store/CATALOG").toURI()).getParent();
    Path store = dir.resolve("store");
    copy(source, store);
    return store;
  }

  private static List<String> keys(Table t) {
    List<String> out = new ArrayList<>();
    try (Cursor c = t.scan(null, null, 0)) {
      while (c.next()) {
        out.add(new String(c.key(), StandardCharsets.UTF_8));
        assertThat(c.expiresAt()).isZero();
      }
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"lsm", "bplus"})
  void v1Store_opensWithItsData_andTakesNewWritesWithExpiry(String engine) throws Exception {
    Path path = oldStore();
    try (KVStore store = KVStore.open(path, StoreOptions.defaults())) {
      Table t = store.table("app", engine);
      List<String> keys = keys(t);
      // 200 flushed, minus flushed-007 (removed before the flush) and flushed-002 (removed in the
      // log); 50 logged, minus logged-000 (removed by the batch); batch-a and batch-b.
      assertThat(keys).hasSize(198 + 49 + 2);
      assertThat(keys).doesNotContain("flushed-002", "flushed-007", "logged-000");
      assertThat(t.get(b("flushed-001"))).isEqualTo(b("overwritten-in-log"));
      assertThat(t.get(b("flushed-199"))).isEqualTo(b("v1-" + engine + "-199"));
      assertThat(t.get(b("logged-049"))).isEqualTo(b("log-" + engine + "-49"));
      assertThat(t.get(b("batch-b"))).isEqualTo(b("B"));
      Entry flushed = t.getEntry(b("flushed-100"));
      assertThat(flushed.hasExpiry()).isFalse();
      assertThat(flushed.version()).isGreaterThanOrEqualTo(0);
      Entry logged = t.getEntry(b("logged-010"));
      assertThat(logged.version()).as("replayed from the v1 log: the record's LSN").isPositive();

      long newVersion = t.put(b("flushed-100"), b("new"), PutOptions.defaults().ttlMillis(3_600_000)).version();
      assertThat(newVersion).isGreaterThan(logged.version());
      t.put(b("fresh"), b("x"));
    }
    try (KVStore store = KVStore.open(path, StoreOptions.defaults())) {
      Table t = store.table("app", engine);
      Entry e = t.getEntry(b("flushed-100"));
      assertThat(e.value()).isEqualTo(b("new"));
      assertThat(e.hasExpiry()).isTrue();
      assertThat(t.get(b("fresh"))).isEqualTo(b("x"));
      assertThat(t.get(b("flushed-199"))).isEqualTo(b("v1-" + engine + "-199"));
    }
  }
}
