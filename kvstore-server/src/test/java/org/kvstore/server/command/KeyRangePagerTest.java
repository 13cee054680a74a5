package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kvstore.Table;

class KeyRangePagerTest {
  @RegisterExtension final ScratchTable scratch = new ScratchTable();

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static List<String> keys(KeyRangePager.Page page) {
    List<String> out = new ArrayList<>();
    page.items().forEach(i -> out.add(new String(i.key(), StandardCharsets.ISO_8859_1)));
    return out;
  }

  @Test
  void forward_byteBound_cutsThePageAfterTheFirstEntryThatFits() {
    Table t = scratch.table();
    for (String k : List.of("a", "b", "c", "d")) {
      t.put(b(k), new byte[100]);
    }
    KeyRangePager.Page page = KeyRangePager.forward(t, null, null, 10, 250, true);
    assertThat(keys(page)).containsExactly("a", "b");
    assertThat(page.resumeKey()).isEqualTo(b("b"));
    KeyRangePager.Page tiny = KeyRangePager.forward(t, null, null, 10, 1, true);
    assertThat(keys(tiny)).containsExactly("a");
    assertThat(KeyRangePager.forward(t, null, null, 10, 250, false).items()).hasSize(4);
  }

  @Test
  void reverse_byteAndCountBounds_keepTheLastEntries() {
    Table t = scratch.table();
    for (String k : List.of("a", "b", "c", "d")) {
      t.put(b(k), new byte[100]);
    }
    KeyRangePager.Page page = KeyRangePager.reverse(t, null, null, 10, 250, true);
    assertThat(keys(page)).containsExactly("d", "c");
    assertThat(page.resumeKey()).isEqualTo(b("c"));
    assertThat(keys(KeyRangePager.reverse(t, b("b"), b("d"), 1, 1 << 20, false))).containsExactly("c");
    assertThat(KeyRangePager.reverse(t, b("a"), null, 10, 1 << 20, false).resumeKey()).isNull();
  }

  @Test
  void prefixEnd_unsignedIncrementOrOpen() {
    assertThat(KeyRangePager.prefixEnd(b("ab"))).isEqualTo(b("ac"));
    assertThat(KeyRangePager.prefixEnd(new byte[] {'a', (byte) 0xFF})).isEqualTo(b("b"));
    assertThat(KeyRangePager.prefixEnd(new byte[] {(byte) 0xFF, (byte) 0xFF})).isNull();
    assertThat(KeyRangePager.prefixEnd(new byte[] {0x7F})).isEqualTo(new byte[] {(byte) 0x80});
  }
}
