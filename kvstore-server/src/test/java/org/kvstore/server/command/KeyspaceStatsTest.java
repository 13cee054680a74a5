package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.PutOptions;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.testkit.FakeClock;

/** The figures of INFO keyspace: exact up to {@link KeyspaceStats#EXACT_MAX_KEYS}, then estimated. */
class KeyspaceStatsTest {
  @TempDir Path dir;
  private final FakeClock clock = FakeClock.atDefaultStart();
  private KVStore store;
  private Table table;

  @BeforeEach
  void open() {
    store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE).clock(clock).build());
    Keyspace keyspace = new Keyspace(store, "memory", 1);
    keyspace.ensureDefaults();
    table = keyspace.indexTable(0);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /**
   * Keys {@code k<from>..k<to-1>}; with {@code everyOther} every other one, else all, expire
   * {@code ttlMillis} from now.
   */
  private void fill(int from, int to, long ttlMillis, boolean everyOther) {
    WriteBatch batch = new WriteBatch();
    for (int i = from; i < to; i++) {
      byte[] key = String.format("k%06d", i).getBytes(StandardCharsets.US_ASCII);
      if (!everyOther || i % 2 == 0) {
        batch.put(key, key, PutOptions.defaults().ttlMillis(ttlMillis));
      } else {
        batch.put(key, key);
      }
    }
    table.write(batch);
  }

  @Test
  void of_emptyTable_isZeroAndExact() {
    assertThat(KeyspaceStats.of(table, clock.millis())).isEqualTo(new KeyspaceStats(0, 0, 0, true));
  }

  @Test
  void of_atTheExactLimit_countsExactly_expiredLeftOut() {
    fill(0, KeyspaceStats.EXACT_MAX_KEYS, 1_000, true);
    fill(KeyspaceStats.EXACT_MAX_KEYS, KeyspaceStats.EXACT_MAX_KEYS + 10, 100, false);
    clock.advanceMillis(101);
    KeyspaceStats s = KeyspaceStats.of(table, clock.millis());
    assertThat(s).isEqualTo(new KeyspaceStats(KeyspaceStats.EXACT_MAX_KEYS,
        KeyspaceStats.EXACT_MAX_KEYS / 2, 899, true));
  }

  @Test
  void of_overTheLimit_estimatesFromTheKeysSeen() {
    int n = 3 * KeyspaceStats.EXACT_MAX_KEYS;
    fill(0, n, 60_000, true);
    KeyspaceStats s = KeyspaceStats.of(table, clock.millis());
    assertThat(s.exact()).isFalse();
    assertThat(s.keys()).isGreaterThan(KeyspaceStats.EXACT_MAX_KEYS);
    assertThat((double) s.expires() / s.keys()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.01));
    assertThat(s.avgTtlMillis()).isEqualTo(60_000);
  }
}
