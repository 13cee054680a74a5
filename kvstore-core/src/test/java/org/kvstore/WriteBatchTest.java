package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WriteBatchTest {
  private static String text(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void forEach_passesPutsAndRemovesInOrder_asCopiesOfTheCallersArrays() {
    byte[] key = "k".getBytes(StandardCharsets.UTF_8);
    byte[] value = "v".getBytes(StandardCharsets.UTF_8);
    WriteBatch b = new WriteBatch().put(key, value).remove("gone").put("k", "w".getBytes(StandardCharsets.UTF_8));
    key[0] = 'x';
    value[0] = 'x';
    List<String> seen = new ArrayList<>();
    b.forEach((k, v) -> seen.add(text(k) + "=" + text(v)));
    assertThat(seen).containsExactly("k=v", "gone=null", "k=w");
    assertThat(b.size()).isEqualTo(3);
    assertThat(b.approximateBytes()).isEqualTo(1 + 1 + 4 + 1 + 1);
  }

  @Test
  void nullKeysAndValues_areRefused() {
    assertThatThrownBy(() -> new WriteBatch().put((byte[]) null, new byte[0]))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("key");
    assertThatThrownBy(() -> new WriteBatch().put(new byte[1], null))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("value");
    assertThatThrownBy(() -> new WriteBatch().remove((byte[]) null))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("key");
  }
}
