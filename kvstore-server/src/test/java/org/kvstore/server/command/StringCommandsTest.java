package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;

/**
 * The string commands' semantics called as a non-RESP front end would: byte arrays and typed
 * options in, plain results or typed exceptions out.
 */
class StringCommandsTest {
  @TempDir Path dir;
  private KVStore store;
  private Table t;
  private final PutWriter writer = new PutWriter();
  private final StringCommands strings = new StringCommands(writer, 16);

  @BeforeEach
  void open() {
    store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE).build());
    Keyspace keyspace = new Keyspace(store, "memory", 1);
    keyspace.ensureDefaults();
    t = keyspace.indexTable(0);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void set_plain_goesThroughThePutWriter() {
    assertThat(strings.set(t, b("k"), b("v"), SetOptions.PLAIN).written()).isTrue();
    assertThat(strings.get(t, b("k"))).isEqualTo(b("v"));
    assertThat(writer.puts()).isEqualTo(1);
    assertThat(writer.batches()).isEqualTo(1);
  }

  @Test
  void set_conditions_writeOnlyWhenTheyHold_andReturnTheOldValue() {
    SetOptions nxGet = new SetOptions(SetOptions.Condition.IF_ABSENT, true);
    SetOptions xx = new SetOptions(SetOptions.Condition.IF_PRESENT, false);
    assertThat(strings.set(t, b("k"), b("1"), xx).written()).isFalse();
    SetResult first = strings.set(t, b("k"), b("1"), nxGet);
    assertThat(first.written()).isTrue();
    assertThat(first.old()).isNull();
    SetResult second = strings.set(t, b("k"), b("2"), nxGet);
    assertThat(second.written()).isFalse();
    assertThat(second.old()).isEqualTo(b("1"));
    assertThat(strings.set(t, b("k"), b("3"), xx).written()).isTrue();
    assertThat(strings.get(t, b("k"))).isEqualTo(b("3"));
  }

  @Test
  void incrementBy_notAnInteger_throwsCommandException() {
    strings.set(t, b("n"), b("x"), SetOptions.PLAIN);
    assertThatThrownBy(() -> strings.incrementBy(t, b("n"), 1))
        .isInstanceOf(CommandException.class)
        .satisfies(e -> {
          assertThat(((CommandException) e).code()).isEqualTo("ERR");
          assertThat(((CommandException) e).detail()).isEqualTo("value is not an integer or out of range");
        });
  }

  @Test
  void incrementBy_overflow_throwsCommandException() {
    strings.set(t, b("n"), b(Long.toString(Long.MAX_VALUE)), SetOptions.PLAIN);
    assertThatThrownBy(() -> strings.incrementBy(t, b("n"), 1)).isInstanceOf(CommandException.class);
  }

  @Test
  void append_pastTheSizeLimit_throwsCommandException() {
    assertThat(strings.append(t, b("a"), b("0123456789"))).isEqualTo(10);
    assertThatThrownBy(() -> strings.append(t, b("a"), b("0123456789")))
        .isInstanceOf(CommandException.class);
  }

  @Test
  void multiGetDeleteAndRange_plainResults() {
    strings.multiSet(t, new byte[][] {b("a"), b("b")}, new byte[][] {b("1"), b("2")});
    byte[][] values = new byte[3][];
    strings.multiGet(t, new byte[][] {b("a"), b("b"), b("c")}, values);
    assertThat(values[0]).isEqualTo(b("1"));
    assertThat(values[1]).isEqualTo(b("2"));
    assertThat(values[2]).isNull();
    assertThat(strings.getRange(t, b("a"), 0, -1)).isEqualTo(b("1"));
    assertThat(strings.delete(t, List.of(b("a"), b("a"), b("c")))).isEqualTo(1);
    assertThat(strings.countExisting(t, List.of(b("a"), b("b"), b("b")))).isEqualTo(2);
  }
}
