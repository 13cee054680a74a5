package org.kvstore.cluster.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvstore.CorruptionException;
import org.kvstore.spi.Mutation;
import org.kvstore.testkit.Seeds;

/**
 * Ties docs/format/raft-entry.md to the code: the doc's example must encode to the golden bytes and
 * decode back. Regenerate with {@code -Dkvstore.rewriteGolden=true} after a deliberate format change
 * (and bump {@link ShardEntryFormat#VERSION}).
 */
class ShardEntryFormatTest {
  static final Path GOLDEN = Path.of("src/test/resources/golden/raft-entry-v1.bin");
  static final Path LOG = Path.of("raft/group/current");

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The doc's example: table "0" puts key=value expiring 2026-01-01T00:00:00Z and removes old; table "meta" puts a=b. */
  static ShardEntry docExample() {
    return new ShardEntry(List.of(
        new TableEffects("0", List.of(Mutation.put(b("key"), b("value"), 1767225600000L), Mutation.remove(b("old")))),
        new TableEffects("meta", List.of(Mutation.put(b("a"), b("b"))))));
  }

  private static void assertSame(ShardEntry actual, ShardEntry expected) {
    assertThat(actual.tables()).hasSameSizeAs(expected.tables());
    for (int t = 0; t < expected.tables().size(); t++) {
      TableEffects a = actual.tables().get(t);
      TableEffects e = expected.tables().get(t);
      assertThat(a.table()).isEqualTo(e.table());
      assertThat(a.mutations()).hasSameSizeAs(e.mutations());
      for (int i = 0; i < e.mutations().size(); i++) {
        Mutation am = a.mutations().get(i);
        Mutation em = e.mutations().get(i);
        assertThat(am.key()).isEqualTo(em.key());
        assertThat(am.value()).isEqualTo(em.value());
        assertThat(am.expiresAt()).isEqualTo(em.expiresAt());
      }
    }
  }

  @Test
  void encode_docExample_matchesGoldenBytes() throws Exception {
    byte[] actual = ShardEntryFormat.encode(docExample());
    if (Boolean.getBoolean("kvstore.rewriteGolden")) {
      Files.createDirectories(GOLDEN.getParent());
      Files.write(GOLDEN, actual);
    }
    assertThat(actual).isEqualTo(Files.readAllBytes(GOLDEN));
  }

  @Test
  void decode_goldenBytes_givesTheDocExample() throws Exception {
    assertSame(ShardEntryFormat.decode(Files.readAllBytes(GOLDEN), LOG, 7), docExample());
  }

  @Test
  void decode_everyFlippedBit_failsWithCorruption_namingTheIndex() throws Exception {
    byte[] golden = Files.readAllBytes(GOLDEN);
    for (int bit = 0; bit < golden.length * 8; bit++) {
      byte[] bad = golden.clone();
      bad[bit / 8] ^= (byte) (1 << (bit % 8));
      assertThatThrownBy(() -> ShardEntryFormat.decode(bad, LOG, 42))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("raft entry at index 42");
    }
  }

  @Test
  void decode_everyTruncation_failsWithCorruption() throws Exception {
    byte[] golden = Files.readAllBytes(GOLDEN);
    for (int len = 0; len < golden.length; len++) {
      byte[] cut = java.util.Arrays.copyOf(golden, len);
      assertThatThrownBy(() -> ShardEntryFormat.decode(cut, LOG, 1)).isInstanceOf(CorruptionException.class);
    }
  }

  @Test
  void decode_unknownVersion_fails() throws Exception {
    ShardEntry e = docExample();
    byte[] bytes = ShardEntryFormat.encode(e);
    bytes[4] = 2;
    // re-seal the checksum so that only the version is wrong
    int crc = org.kvstore.codec.Crc32c.of(bytes, 0, bytes.length - 4);
    java.nio.ByteBuffer.wrap(bytes, bytes.length - 4, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(crc);
    assertThatThrownBy(() -> ShardEntryFormat.decode(bytes, LOG, 1))
        .isInstanceOf(CorruptionException.class).hasMessageContaining("version 2 is not supported");
  }

  @Test
  void encodeThenDecode_randomEntries_roundTrip() {
    long seed = Seeds.seed("ShardEntryFormatTest.random");
    Random rnd = new Random(seed);
    for (int round = 0; round < 200; round++) {
      int tables = 1 + rnd.nextInt(3);
      List<TableEffects> t = new java.util.ArrayList<>();
      for (int i = 0; i < tables; i++) {
        List<Mutation> ms = new java.util.ArrayList<>();
        for (int m = rnd.nextInt(5); m > 0; m--) {
          byte[] key = new byte[1 + rnd.nextInt(20)];
          rnd.nextBytes(key);
          if (rnd.nextBoolean()) {
            byte[] value = new byte[rnd.nextInt(40)];
            rnd.nextBytes(value);
            ms.add(Mutation.put(key, value, rnd.nextBoolean() ? 0 : 1 + (rnd.nextLong() >>> 1) % 4_000_000_000_000L));
          } else {
            ms.add(Mutation.remove(key));
          }
        }
        t.add(new TableEffects("t" + i, ms));
      }
      ShardEntry e = new ShardEntry(t);
      assertSame(ShardEntryFormat.decode(ShardEntryFormat.encode(e), LOG, round), e);
    }
  }

  @Test
  void encode_sameTableTwice_isRefused() {
    ShardEntry e = new ShardEntry(List.of(new TableEffects("0", List.of()), new TableEffects("0", List.of())));
    assertThatThrownBy(() -> ShardEntryFormat.encode(e)).isInstanceOf(IllegalArgumentException.class);
  }
}
