package org.kvstore.bplus.page;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.kvstore.CorruptionException;

/** The doc's example page (docs/format/bplus.md section 9) against its golden file. */
class PageFormatTest {
  private static final Path GOLDEN = Paths.get("src/test/resources/golden/bplus-leaf-v1.bin");

  /** The example: leaf 7 of 4 KiB, right sibling 9, "apple"->"red" then "kiwi"->"green". */
  static byte[] docExample() {
    byte[] page = new byte[4096];
    SlottedPage.init(page, PageType.LEAF, 0, 7, 9);
    insert(page, 0, "apple", "red");
    insert(page, 1, "kiwi", "green");
    PageFormat.seal(page);
    return page;
  }

  private static void insert(byte[] page, int index, String k, String v) {
    byte[] key = k.getBytes();
    byte[] value = v.getBytes();
    int off = SlottedPage.allocateCell(page, index, LeafPage.inlineCellSize(key.length, value.length));
    LeafPage.writeInlineCell(page, off, key, value);
  }

  @Test
  void encode_docExample_matchesGoldenBytes() throws Exception {
    byte[] page = docExample();
    if (Boolean.getBoolean("kvstore.rewriteGolden")) {
      Files.createDirectories(GOLDEN.getParent());
      Files.write(GOLDEN, page);
    }
    assertThat(page).isEqualTo(Files.readAllBytes(GOLDEN));
  }

  @Test
  void decode_goldenBytes_givesTheDocExample() throws Exception {
    byte[] page = Files.readAllBytes(GOLDEN);
    PageFormat.verify(page, GOLDEN, 3, PageType.LEAF, 7);
    assertThat(SlottedPage.count(page)).isEqualTo(2);
    assertThat(SlottedPage.link(page)).isEqualTo(9);
    assertThat(new String(LeafPage.inlineKey(page, SlottedPage.cellOffset(page, 1)))).isEqualTo("kiwi");
    assertThat(new String(LeafPage.inlineValue(page, SlottedPage.cellOffset(page, 1)))).isEqualTo("green");
  }

  @Test
  void verify_flippedBit_failsNamingFileAndPage() {
    byte[] page = docExample();
    page[4000] ^= 0x10;
    Path file = Paths.get("some/bplus.db");
    assertThatThrownBy(() -> PageFormat.verify(page, file, 3, PageType.LEAF, 7))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("bplus.db")
        .hasMessageContaining("page 7 (slot 3)")
        .hasMessageContaining("checksum mismatch")
        .satisfies(e -> assertThat(((CorruptionException) e).offset()).isEqualTo(3 * 4096L));
  }

  @Test
  void verify_unknownVersion_isCorruption() {
    byte[] page = docExample();
    page[PageFormat.VERSION_OFFSET] = 2;
    PageFormat.seal(page);
    assertThatThrownBy(() -> PageFormat.verify(page, Paths.get("f"), 3, PageType.LEAF, 7))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("unknown format version 2");
  }

  @Test
  void verify_misdirectedPage_isCorruption() {
    byte[] page = docExample();
    assertThatThrownBy(() -> PageFormat.verify(page, Paths.get("f"), 3, PageType.LEAF, 8))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("names page 7");
  }

  @Test
  void removeAndCompact_keepsCellsAndReclaimsSpace() {
    byte[] page = docExample();
    int freeBefore = SlottedPage.freeTotal(page);
    SlottedPage.removeCell(page, 0);
    assertThat(SlottedPage.freeTotal(page)).isEqualTo(freeBefore + 2 + LeafPage.inlineCellSize(5, 3));
    SlottedPage.compact(page);
    assertThat(SlottedPage.count(page)).isEqualTo(1);
    assertThat(new String(LeafPage.inlineKey(page, SlottedPage.cellOffset(page, 0)))).isEqualTo("kiwi");
  }

  @Test
  void metaPage_roundTrips() {
    MetaPage m = new MetaPage(8192, 5, 1234, 1, 3, 99, 42, 17, 8);
    byte[] page = new byte[8192];
    m.encodeTo(page);
    assertThat(MetaPage.decodeFrom(page, Paths.get("f"), 1)).isEqualTo(m);
    page[100] = 1;
    assertThatThrownBy(() -> MetaPage.decodeFrom(page, Paths.get("f"), 1))
        .isInstanceOf(CorruptionException.class);
  }
}
