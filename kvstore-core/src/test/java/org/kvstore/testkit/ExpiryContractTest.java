package org.kvstore.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.Durability;
import org.kvstore.Entry;
import org.kvstore.InvalidArgumentException;
import org.kvstore.KVStore;
import org.kvstore.Precondition;
import org.kvstore.PreconditionFailedException;
import org.kvstore.PutOptions;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.WriteResult;

/**
 * The contract of expiry and versions, run against every engine: what the store's embedded API
 * promises ({@link Table#put(byte[], byte[], PutOptions)}, {@link Table#getEntry},
 * {@link Table#persist}, {@link Table#expireAt}, batches with options) on a clock the test moves.
 * The randomized model test with expiry is {@link EngineContractTest}'s; this class holds the
 * targeted cases.
 */
public abstract class ExpiryContractTest {
  protected static final String DB = "kit";
  protected static final String TABLE = "t";

  @TempDir protected Path dir;
  protected final FakeClock clock = FakeClock.atDefaultStart();
  protected KVStore store;
  protected Table table;

  protected abstract String engineName();

  protected Properties tableProperties() {
    return new Properties();
  }

  private StoreOptions options() {
    // Active expiry off in the background: the tests run it themselves (expireNow).
    return StoreOptions.builder().durability(Durability.NONE).clock(clock)
        .expiryInterval(Duration.ZERO).build();
  }

  @BeforeEach
  void openStore() {
    store = KVStore.open(dir, options());
    store.createDB(DB);
    store.createTable(DB, TABLE, engineName(), tableProperties());
    table = store.table(DB, TABLE);
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  protected boolean durable() {
    return store.tableInfo(DB, TABLE).durability() != null;
  }

  protected Table reopen() {
    store.close();
    store = KVStore.open(dir, options());
    table = store.table(DB, TABLE);
    return table;
  }

  protected static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private List<String> scanKeys() {
    List<String> keys = new ArrayList<>();
    try (Cursor c = table.scan(null, null, 0)) {
      while (c.next()) {
        keys.add(new String(c.key(), StandardCharsets.UTF_8));
      }
    }
    return keys;
  }

  private void flushIfDurable() {
    table.flush();
  }

  @Test
  void ttl_entryIsVisibleThroughItsLastMillisecondAndAbsentAfter() {
    long now = clock.millis();
    WriteResult r = table.put(b("k"), b("v"), PutOptions.defaults().ttlMillis(1000));
    assertThat(r.applied()).isTrue();
    Entry e = table.getEntry(b("k"));
    assertThat(e.expiresAt()).isEqualTo(now + 1000);
    assertThat(e.version()).isEqualTo(r.version()).isPositive();
    clock.advanceMillis(1000);
    assertThat(table.get(b("k"))).isEqualTo(b("v"));
    assertThat(table.getEntry(b("k")).remainingMillis(clock.millis())).isZero();
    clock.advanceMillis(1);
    assertThat(table.get(b("k"))).isNull();
    assertThat(table.getReadOnly(b("k"))).isNull();
    assertThat(table.getEntry(b("k"))).isNull();
    byte[][] values = new byte[1][];
    table.multiGetReadOnly(new byte[][] {b("k")}, values);
    assertThat(values[0]).isNull();
    assertThat(scanKeys()).isEmpty();
  }

  @Test
  void expiredEntries_areAbsentForEveryReadPath_afterFlushAndReopen() {
    table.put(b("a"), b("1"), PutOptions.defaults().ttlMillis(50));
    table.put(b("b"), b("2"));
    table.put(b("c"), b("3"), PutOptions.defaults().ttlMillis(5000));
    flushIfDurable();
    clock.advanceMillis(100);
    assertThat(scanKeys()).containsExactly("b", "c");
    assertThat(table.get(b("a"))).isNull();
    if (durable()) {
      Entry before = table.getEntry(b("c"));
      reopen();
      assertThat(scanKeys()).containsExactly("b", "c");
      Entry after = table.getEntry(b("c"));
      assertThat(after.version()).isEqualTo(before.version());
      assertThat(after.expiresAt()).isEqualTo(before.expiresAt());
      clock.advanceMillis(5000);
      reopen();
      assertThat(scanKeys()).containsExactly("b");
    }
  }

  @Test
  void expiredNewestEntry_doesNotBringBackAnOlderValue() {
    table.put(b("k"), b("old"));
    flushIfDurable();
    table.put(b("k"), b("new"), PutOptions.defaults().ttlMillis(10));
    flushIfDurable();
    clock.advanceMillis(20);
    assertThat(table.get(b("k"))).isNull();
    store.expireNow();
    assertThat(table.get(b("k"))).isNull();
    flushIfDurable();
    assertThat(table.get(b("k"))).isNull();
    assertThat(scanKeys()).isEmpty();
  }

  @Test
  void versions_growWithEveryWrite_andAreNeverReusedAcrossReopen() {
    long v1 = table.put(b("k"), b("a"), PutOptions.defaults()).version();
    long v2 = table.put(b("k"), b("b"), PutOptions.defaults()).version();
    assertThat(v2).isGreaterThan(v1);
    table.put(b("k"), b("c"));
    long v3 = table.getEntry(b("k")).version();
    assertThat(v3).isGreaterThan(v2);
    assertThat(table.persist(b("k"))).isFalse(); // no expiry: nothing to drop, no new version
    assertThat(table.getEntry(b("k")).version()).isEqualTo(v3);
    assertThat(table.expireAt(b("k"), clock.millis() + 60_000)).isTrue();
    long v4 = table.getEntry(b("k")).version();
    assertThat(v4).isGreaterThan(v3);
    assertThat(table.persist(b("k"))).isTrue();
    Entry e = table.getEntry(b("k"));
    assertThat(e.version()).isGreaterThan(v4);
    assertThat(e.hasExpiry()).isFalse();
    assertThat(e.value()).isEqualTo(b("c"));
    if (durable()) {
      flushIfDurable();
      reopen();
      assertThat(table.getEntry(b("k")).version()).isEqualTo(e.version());
      long v6 = table.put(b("k"), b("d"), PutOptions.defaults()).version();
      assertThat(v6).isGreaterThan(e.version());
    }
  }

  @Test
  void preconditions_ifAbsentIfPresentIfVersion_writeOnlyWhenTheyHold() {
    assertThat(table.put(b("k"), b("x"), PutOptions.defaults().ifPresent()).applied()).isFalse();
    assertThat(table.get(b("k"))).isNull();
    WriteResult created = table.put(b("k"), b("a"), PutOptions.defaults().ifAbsent());
    assertThat(created.applied()).isTrue();
    assertThat(created.created()).isTrue();
    WriteResult refused = table.put(b("k"), b("b"), PutOptions.defaults().ifAbsent());
    assertThat(refused.applied()).isFalse();
    assertThat(refused.version()).isEqualTo(created.version());
    assertThat(refused.previous().value()).isEqualTo(b("a"));
    assertThat(table.put(b("k"), b("c"), PutOptions.defaults().ifVersion(created.version() + 1000)).applied())
        .isFalse();
    WriteResult replaced = table.put(b("k"), b("c"), PutOptions.defaults().ifVersion(created.version()));
    assertThat(replaced.applied()).isTrue();
    assertThat(replaced.created()).isFalse();
    assertThat(table.get(b("k"))).isEqualTo(b("c"));
    assertThat(table.remove(b("k"), Precondition.version(created.version())).applied()).isFalse();
    assertThat(table.remove(b("k"), Precondition.version(replaced.version())).applied()).isTrue();
    assertThat(table.get(b("k"))).isNull();
  }

  @Test
  void ifAbsent_treatsAnExpiredKeyAsAbsent() {
    table.put(b("lock"), b("a"), PutOptions.defaults().ttlMillis(100));
    assertThat(table.put(b("lock"), b("b"), PutOptions.defaults().ifAbsent()).applied()).isFalse();
    clock.advanceMillis(101);
    assertThat(table.put(b("lock"), b("b"), PutOptions.defaults().ifAbsent().ttlMillis(100)).applied())
        .isTrue();
    assertThat(table.get(b("lock"))).isEqualTo(b("b"));
  }

  @Test
  void keepExpiry_keepsTheCurrentExpiry_andAPlainPutDropsIt() {
    table.put(b("k"), b("a"), PutOptions.defaults().ttlMillis(1000));
    long expiresAt = table.getEntry(b("k")).expiresAt();
    clock.advanceMillis(10);
    table.put(b("k"), b("b"), PutOptions.defaults().keepExpiry());
    assertThat(table.getEntry(b("k")).expiresAt()).isEqualTo(expiresAt);
    table.put(b("k"), b("c"));
    assertThat(table.getEntry(b("k")).hasExpiry()).isFalse();
    table.put(b("new"), b("x"), PutOptions.defaults().keepExpiry());
    assertThat(table.getEntry(b("new")).hasExpiry()).isFalse();
  }

  @Test
  void expireAt_inThePastRemovesTheKey_andAbsentKeysAreNotTouched() {
    table.put(b("k"), b("v"));
    assertThat(table.expireAt(b("missing"), clock.millis() + 1000)).isFalse();
    assertThat(table.get(b("missing"))).isNull();
    assertThat(table.expireAt(b("k"), clock.millis())).isTrue();
    assertThat(table.get(b("k"))).isNull();
  }

  @Test
  void batch_withOptions_resolvesExpiries_andAFailedPreconditionWritesNothing() {
    table.put(b("guard"), b("g"));
    long guard = table.getEntry(b("guard")).version();
    WriteBatch ok = new WriteBatch()
        .put(b("a"), b("1"), PutOptions.defaults().ttlMillis(100))
        .put(b("b"), b("2"))
        .remove(b("guard"), Precondition.version(guard));
    table.write(ok);
    assertThat(table.getEntry(b("a")).expiresAt()).isEqualTo(clock.millis() + 100);
    assertThat(table.get(b("guard"))).isNull();
    assertThat(table.getEntry(b("a")).version()).isEqualTo(table.getEntry(b("b")).version());

    WriteBatch refused = new WriteBatch()
        .put(b("c"), b("3"))
        .put(b("b"), b("changed"), PutOptions.defaults().ifAbsent());
    assertThatThrownBy(() -> table.write(refused))
        .isInstanceOf(PreconditionFailedException.class)
        .hasMessageContaining("'b'")
        .hasMessageContaining(DB + "." + TABLE);
    assertThat(table.get(b("c"))).isNull();
    assertThat(table.get(b("b"))).isEqualTo(b("2"));
  }

  @Test
  void updateEntries_seesExpiries_andWritesWithKeepExpiry() {
    table.put(b("src"), b("v"), PutOptions.defaults().ttlMillis(500));
    long expiresAt = table.getEntry(b("src")).expiresAt();
    table.updateEntries(List.of(b("src"), b("dst")), entries -> {
      assertThat(entries[0].expiresAt()).isEqualTo(expiresAt);
      assertThat(entries[1]).isNull();
      return new WriteBatch().remove(b("src"))
          .put(b("dst"), entries[0].value(), PutOptions.defaults().expireAt(entries[0].expiresAt()));
    });
    assertThat(table.get(b("src"))).isNull();
    assertThat(table.getEntry(b("dst")).expiresAt()).isEqualTo(expiresAt);
    table.update(List.of(b("dst")), values -> new WriteBatch().put(b("dst"), b("w"), PutOptions.defaults().keepExpiry()));
    assertThat(table.getEntry(b("dst")).expiresAt()).isEqualTo(expiresAt);
    clock.advanceMillis(501);
    table.update(List.of(b("dst")), values -> {
      assertThat(values[0]).isNull(); // update's view hides expired entries
      return null;
    });
  }

  @Test
  void options_rejectConflictingOrInvalidExpiries() {
    assertThatThrownBy(() -> PutOptions.defaults().ttlMillis(10).keepExpiry())
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("at most one");
    assertThatThrownBy(() -> PutOptions.defaults().ttlMillis(0))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("ttl");
    assertThatThrownBy(() -> PutOptions.defaults().expireAt(-5))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("expireAt");
    assertThatThrownBy(() -> table.expireAt(b("k"), 0)).isInstanceOf(InvalidArgumentException.class);
  }

  @Test
  void activeExpiry_removesExpiredEntriesWithoutReads_andRestsWhenNoneAreLeft() {
    int n = 5_000;
    WriteBatch batch = new WriteBatch();
    for (int i = 0; i < n; i++) {
      byte[] key = b(String.format("key%06d", i));
      if (i % 5 == 0) {
        batch.put(key, b("keep"));
      } else {
        batch.put(key, b("gone"), PutOptions.defaults().ttlMillis(1000 + i));
      }
    }
    table.write(batch);
    flushIfDurable();
    clock.advanceMillis(1000 + n);
    long removed = store.expireNow();
    assertThat(removed).isEqualTo(n - n / 5);
    assertThat(store.expireNow()).isZero();
    long passesAfterRounds = store.expiryStats().passes();
    assertThat(scanKeys()).hasSize(n / 5);
    assertThat(table.get(b("key000001"))).isNull();
    assertThat(table.get(b("key000005"))).isEqualTo(b("keep"));
    assertThat(passesAfterRounds).isPositive();
    if (durable()) {
      reopen();
      assertThat(scanKeys()).hasSize(n / 5);
    }
  }

  @Test
  void reopen_afterTheClockPassedExpiries_hidesThemAtOnce() {
    assumeTrue(durable(), "only durable engines keep data across reopen");
    for (int i = 0; i < 100; i++) {
      table.put(b("k" + i), b("v"), PutOptions.defaults().ttlMillis(i < 50 ? 100 : 100_000));
    }
    store.close();
    clock.advanceMillis(1_000);
    store = KVStore.open(dir, options());
    table = store.table(DB, TABLE);
    assertThat(scanKeys()).hasSize(50);
    assertThat(table.get(b("k0"))).isNull();
    assertThat(table.get(b("k99"))).isEqualTo(b("v"));
  }
}
