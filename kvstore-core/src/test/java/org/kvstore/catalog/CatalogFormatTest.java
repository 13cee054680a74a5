package org.kvstore.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvstore.CorruptionException;

/**
 * Ties docs/format/catalog.md to the code: the doc's example (next table id 3, database "default"
 * holding table 1 named "0" of the lsm engine with {@code memtable.size=8MiB}) must encode to the
 * golden bytes, and the golden bytes decode back to it. Regenerate with {@code
 * -Dkvstore.rewriteGolden=true} after a deliberate format change (and bump {@link
 * CatalogFormat#VERSION}).
 */
class CatalogFormatTest {
  static final Path GOLDEN = Path.of("src/test/resources/golden/catalog-v1.bin");

  static CatalogState docExample() {
    TableDescriptor t = new TableDescriptor(1, "default", "0", "lsm", Map.of("memtable.size", "8MiB"));
    return new CatalogState(3, Map.of("default", Map.of("0", t)));
  }

  @Test
  void encode_docExample_matchesGoldenBytes() throws Exception {
    byte[] actual = CatalogFormat.encode(docExample());
    if (Boolean.getBoolean("kvstore.rewriteGolden")) {
      Files.createDirectories(GOLDEN.getParent());
      Files.write(GOLDEN, actual);
    }
    assertThat(actual).isEqualTo(Files.readAllBytes(GOLDEN));
  }

  @Test
  void decode_goldenBytes_givesTheDocExample() throws Exception {
    CatalogState state = CatalogFormat.decode(GOLDEN, Files.readAllBytes(GOLDEN));
    assertThat(state.nextTableId()).isEqualTo(3);
    assertThat(state.databases()).containsOnlyKeys("default");
    assertThat(state.allTables()).containsExactly(docExample().table("default", "0"));
  }

  @Test
  void decode_goldenBytes_headerIsTheDocsLine() throws Exception {
    String text = new String(Files.readAllBytes(GOLDEN), StandardCharsets.US_ASCII);
    assertThat(text.substring(0, text.indexOf('\n') + 1))
        .matches("KVSTORE-CATALOG v1 length=[0-9]+ crc32c=[0-9a-f]{8}\n");
  }

  @Test
  void decode_flippedBodyByte_failsNamingFileAndOffset() throws Exception {
    byte[] file = Files.readAllBytes(GOLDEN);
    int bodyStart = new String(file, StandardCharsets.US_ASCII).indexOf('\n') + 1;
    file[file.length - 3] ^= 0x01;
    Path path = Path.of("data/CATALOG");
    assertThatThrownBy(() -> CatalogFormat.decode(path, file))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("CATALOG")
        .hasMessageContaining(String.valueOf(bodyStart))
        .hasMessageContaining("checksum mismatch");
  }

  @Test
  void decode_unknownVersion_fails() throws Exception {
    String text = new String(Files.readAllBytes(GOLDEN), StandardCharsets.US_ASCII);
    byte[] v2 = text.replaceFirst(" v1 ", " v2 ").getBytes(StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> CatalogFormat.decode(GOLDEN, v2))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("version 2 is not supported");
  }
}
