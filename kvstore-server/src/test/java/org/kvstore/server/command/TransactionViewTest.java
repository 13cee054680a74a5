package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.Precondition;
import org.kvstore.PreconditionFailedException;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.WriteResult;

/**
 * The entry-aware methods of {@link TransactionView}: they must answer as the store's table would
 * (expiry by the store's clock, preconditions, keep-expiry), and {@link TransactionView#changes()}
 * must carry each put's absolute expiry to the store.
 */
class TransactionViewTest {
  @RegisterExtension final ScratchTable scratch = new ScratchTable();
  private Table t;

  @BeforeEach
  void table() {
    t = scratch.table();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private long now() {
    return scratch.clock().millis();
  }

  /** A view of keys a, b, c, d as the table has them now. */
  private TransactionView view() {
    List<byte[]> keys = List.of(b("a"), b("b"), b("c"), b("d"));
    Entry[] entries = new Entry[keys.size()];
    for (int i = 0; i < entries.length; i++) {
      entries[i] = t.getEntry(keys.get(i));
    }
    return new TransactionView(t, scratch.clock(), keys, entries);
  }

  @Test
  void getEntry_seesVersionAndExpiry_andTheClockExpiresEntries() {
    t.put(b("a"), b("1"), PutOptions.defaults().ttlMillis(100));
    Entry stored = t.getEntry(b("a"));
    TransactionView v = view();
    Entry seen = v.getEntry(b("a"));
    assertThat(seen.value()).isEqualTo(b("1"));
    assertThat(seen.version()).isEqualTo(stored.version());
    assertThat(seen.expiresAt()).isEqualTo(now() + 100);
    assertThat(v.getEntry(b("b"))).isNull();
    scratch.clock().advanceMillis(101);
    assertThat(v.getEntry(b("a"))).isNull();
    assertThat(v.get(b("a"))).isNull();
    assertThat(v.remove(b("a"))).isFalse();
  }

  @Test
  void putWithOptions_checksPreconditions_resolvesExpiry_andChangesCarryIt() {
    t.put(b("a"), b("1"), PutOptions.defaults().expireAt(now() + 5000));
    TransactionView v = view();
    WriteResult refused = v.put(b("a"), b("x"), PutOptions.defaults().ifAbsent());
    assertThat(refused.applied()).isFalse();
    assertThat(refused.previous().value()).isEqualTo(b("1"));
    assertThat(v.put(b("a"), b("2"), PutOptions.defaults().keepExpiry()).applied()).isTrue();
    assertThat(v.put(b("b"), b("3"), PutOptions.defaults().ttlMillis(700).ifAbsent()).applied()).isTrue();
    assertThat(v.getEntry(b("a")).expiresAt()).isEqualTo(now() + 5000);
    assertThat(v.getEntry(b("a")).version()).as("written, not committed").isZero();

    t.write(v.changes());
    assertThat(t.getEntry(b("a")).expiresAt()).isEqualTo(now() + 5000);
    assertThat(t.get(b("a"))).isEqualTo(b("2"));
    assertThat(t.getEntry(b("b")).expiresAt()).isEqualTo(now() + 700);
  }

  @Test
  void removeWithPrecondition_expireAt_persist() {
    t.put(b("a"), b("1"));
    t.put(b("b"), b("2"));
    long versionA = t.getEntry(b("a")).version();
    TransactionView v = view();
    assertThat(v.remove(b("a"), Precondition.version(versionA + 1)).applied()).isFalse();
    assertThat(v.remove(b("a"), Precondition.version(versionA)).applied()).isTrue();
    assertThat(v.remove(b("c"), Precondition.none()).applied()).as("absent").isFalse();
    assertThat(v.expireAt(b("b"), now() + 1000)).isTrue();
    assertThat(v.expireAt(b("c"), now() + 1000)).isFalse();
    assertThat(v.persist(b("b"))).isTrue();
    assertThat(v.persist(b("b"))).isFalse();
    assertThat(v.expireAt(b("b"), now() + 2000)).isTrue();
    t.put(b("d"), b("4"));
    TransactionView w = view();
    assertThat(w.expireAt(b("d"), now())).as("a time not after now removes").isTrue();

    t.write(v.changes());
    t.write(w.changes());
    assertThat(t.get(b("a"))).isNull();
    assertThat(t.getEntry(b("b")).expiresAt()).isEqualTo(now() + 2000);
    assertThat(t.get(b("d"))).isNull();
  }

  @Test
  void write_failedPrecondition_appliesNothing_keepExpiryFollowsAnEarlierPut() {
    t.put(b("a"), b("1"));
    TransactionView v = view();
    WriteBatch failing = new WriteBatch().put(b("b"), b("2")).put(b("a"), b("x"), PutOptions.defaults().ifAbsent());
    assertThatThrownBy(() -> v.write(failing)).isInstanceOf(PreconditionFailedException.class);
    assertThat(v.get(b("b"))).isNull();
    assertThat(v.get(b("a"))).isEqualTo(b("1"));

    v.write(new WriteBatch()
        .put(b("c"), b("3"), PutOptions.defaults().expireAt(now() + 900))
        .put(b("c"), b("4"), PutOptions.defaults().keepExpiry()));
    assertThat(v.getEntry(b("c")).expiresAt()).isEqualTo(now() + 900);
    assertThat(v.get(b("c"))).isEqualTo(b("4"));
  }

  @Test
  void updateEntries_passesEntries_andScanShowsTheTransactionsExpiries() {
    t.put(b("a"), b("1"), PutOptions.defaults().ttlMillis(50));
    TransactionView v = view();
    v.updateEntries(List.of(b("a"), b("b")), cur -> {
      assertThat(cur[0].expiresAt()).isEqualTo(now() + 50);
      assertThat(cur[1]).isNull();
      return new WriteBatch().put(b("b"), b("2"), PutOptions.defaults().expireAt(cur[0].expiresAt()));
    });
    List<String> seen = new ArrayList<>();
    try (Cursor c = v.scan(null, null, 0)) {
      while (c.next()) {
        seen.add(new String(c.key(), StandardCharsets.UTF_8) + "@" + (c.expiresAt() - now()));
      }
    }
    assertThat(seen).containsExactly("a@50", "b@50");
    scratch.clock().advanceMillis(51);
    assertThat(v.get(b("b"))).isNull();
    t.write(v.changes());
    assertThat(t.getEntry(b("b"))).as("expired within the transaction: removed").isNull();
  }
}
