package org.kvstore.bplus.page;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.kvstore.CorruptionException;

/**
 * The doc's example pages (docs/format/bplus.md section 9) against their golden files: version 2
 * (written by this build) and version 1 (written by the build before versions and expiry, kept to
 * check that this build still reads it).
 */
class PageFormatTest {
  private static final Path GOLDEN = Paths.get("src/test/resources/golden/bplus-leaf-v2.bin");
  private static final Path GOLDEN_V1 = Paths.get("src/test/resources/golden/bplus-leaf-v1.bin");

  /** 2026-01-01T00:00:00Z, the example's expiry time. */
  static final long EXPIRES_AT = 1_767_225_600_000L;

  /**
   * The example: leaf 7 of 4 KiB, right sibling 9, "apple"->"red" (version 300, expiring at
   * {@link #EXPIRES_AT}) then "kiwi"->"green" (version 5, no expiry).
   */
  static byte[] docExample() {
    byte[] page = new byte[4096];
    SlottedPage.init(page, PageType.LEAF, 0, 7, 9);
    insert(page, 0, "apple", "red", EXPIRES_AT, 300);
    insert(page, 1, "kiwi", "green", 0, 5);
    PageFormat.seal(page);
    return page;
  }

  private static void insert(byte[] page, int index, String k, String v, long expiresAt, long version) {
    byte[] key = k.getBytes();
    byte[] value = v.getBytes();
    byte[] cell = new byte[LeafPage.inlineCellSize(key.length, value.length, expiresAt, version)];
    LeafPage.writeInlineCell(cell, 0, key, value, expiresAt, version);
    SlottedPage.insertCell(page, index, cell, 0, cell.length);
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
    assertThat(PageFormat.version(page)).isEqualTo(2);
    assertThat(SlottedPage.count(page)).isEqualTo(2);
    assertThat(SlottedPage.link(page)).isEqualTo(9);
    int apple = SlottedPage.cellOffset(page, 0);
    assertThat(new String(LeafPage.inlineKey(page, apple))).isEqualTo("apple");
    assertThat(new String(LeafPage.inlineValue(page, apple))).isEqualTo("red");
    assertThat(LeafPage.expiresAt(page, apple)).isEqualTo(EXPIRES_AT);
    assertThat(LeafPage.version(page, apple)).isEqualTo(300);
    int kiwi = SlottedPage.cellOffset(page, 1);
    assertThat(new String(LeafPage.inlineKey(page, kiwi))).isEqualTo("kiwi");
    assertThat(new String(LeafPage.inlineValue(page, kiwi))).isEqualTo("green");
    assertThat(LeafPage.expiresAt(page, kiwi)).isZero();
    assertThat(LeafPage.version(page, kiwi)).isEqualTo(5);
    assertThat(LeafPage.expiryHint(page)).isEqualTo(EXPIRES_AT / 1000 + 1);
  }

  @Test
  void decode_goldenV1Bytes_givesCellsWithoutVersionOrExpiry() throws Exception {
    byte[] page = Files.readAllBytes(GOLDEN_V1);
    PageFormat.verify(page, GOLDEN_V1, 3, PageType.LEAF, 7);
    assertThat(PageFormat.version(page)).isEqualTo(1);
    assertThat(SlottedPage.count(page)).isEqualTo(2);
    assertThat(LeafPage.expiryHint(page)).isZero();
    String[][] expected = {{"apple", "red"}, {"kiwi", "green"}};
    for (int i = 0; i < 2; i++) {
      int off = SlottedPage.cellOffset(page, i);
      assertThat(new String(LeafPage.inlineKey(page, off))).isEqualTo(expected[i][0]);
      assertThat(new String(LeafPage.inlineValue(page, off))).isEqualTo(expected[i][1]);
      assertThat(LeafPage.cellSize(page, off)).isEqualTo(3 + expected[i][0].length() + expected[i][1].length());
      assertThat(LeafPage.version(page, off)).isZero();
      assertThat(LeafPage.expiresAt(page, off)).isZero();
    }
  }

  @Test
  void insertCell_intoV1Page_writesVersion2AndKeepsOldCells() throws Exception {
    byte[] page = Files.readAllBytes(GOLDEN_V1);
    insert(page, 1, "fig", "purple", 5_000, 42);
    PageFormat.seal(page);
    PageFormat.verify(page, GOLDEN_V1, 3, PageType.LEAF, 7);
    assertThat(PageFormat.version(page)).isEqualTo(2);
    assertThat(SlottedPage.count(page)).isEqualTo(3);
    int apple = SlottedPage.cellOffset(page, 0);
    assertThat(new String(LeafPage.inlineValue(page, apple))).isEqualTo("red");
    assertThat(LeafPage.version(page, apple)).isZero();
    int fig = SlottedPage.cellOffset(page, 1);
    assertThat(LeafPage.version(page, fig)).isEqualTo(42);
    assertThat(LeafPage.expiresAt(page, fig)).isEqualTo(5_000);
    assertThat(LeafPage.expiryHint(page)).isEqualTo(6);
    assertThat(new String(LeafPage.inlineValue(page, SlottedPage.cellOffset(page, 2))))
        .isEqualTo("green");
  }

  @Test
  void removeCell_fromV1Page_writesVersion2() throws Exception {
    byte[] page = Files.readAllBytes(GOLDEN_V1);
    SlottedPage.removeCell(page, 0);
    assertThat(PageFormat.version(page)).isEqualTo(2);
  }

  @Test
  void expiryHint_boundsEveryExpiryAndIsExactAfterReset() {
    byte[] page = new byte[4096];
    SlottedPage.init(page, PageType.LEAF, 0, 7, 0);
    assertThat(LeafPage.mayHoldExpired(page, Long.MAX_VALUE)).isFalse();
    insert(page, 0, "a", "1", 10_500, 1);
    insert(page, 1, "b", "2", 7_999, 2);
    insert(page, 2, "c", "3", 0, 3);
    assertThat(LeafPage.expiryHint(page)).isEqualTo(8);
    assertThat(LeafPage.mayHoldExpired(page, 7_000)).isFalse();
    assertThat(LeafPage.mayHoldExpired(page, 7_001)).isTrue();
    LeafPage.setExpiryHint(page, 0);
    assertThat(LeafPage.mayHoldExpired(page, Long.MAX_VALUE)).isFalse();
    insert(page, 3, "d", "4", 999, 4);
    assertThat(LeafPage.expiryHint(page)).isEqualTo(1);
    assertThat(LeafPage.mayHoldExpired(page, Long.MIN_VALUE)).isTrue();
  }

  @Test
  void cellSize_withBothMetadataFields_coversTheCell() {
    byte[] cell = new byte[LeafPage.inlineCellSize(3, 4, Long.MAX_VALUE, Long.MAX_VALUE)];
    LeafPage.writeInlineCell(cell, 0, "key".getBytes(), "vals".getBytes(), Long.MAX_VALUE, Long.MAX_VALUE);
    assertThat(cell.length).isEqualTo(1 + 1 + 1 + 3 + 4 + 8 + 9);
    assertThat(LeafPage.cellSize(cell, 0)).isEqualTo(cell.length);
    assertThat(LeafPage.expiresAt(cell, 0)).isEqualTo(Long.MAX_VALUE);
    assertThat(LeafPage.version(cell, 0)).isEqualTo(Long.MAX_VALUE);
    byte[] over = new byte[LeafPage.overflowCellSize(3, 70_000, false, 12_345, 7)];
    LeafPage.writeOverflowCell(over, 0, "key".getBytes(), 70_000, false, 11, 22, 12_345, 7);
    assertThat(LeafPage.cellSize(over, 0)).isEqualTo(over.length);
    assertThat(LeafPage.chainFirst(over, 0)).isEqualTo(11);
    assertThat(LeafPage.chainId(over, 0)).isEqualTo(22);
    assertThat(LeafPage.expiresAt(over, 0)).isEqualTo(12_345);
    assertThat(LeafPage.version(over, 0)).isEqualTo(7);
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
    page[PageFormat.VERSION_OFFSET] = 3;
    PageFormat.seal(page);
    assertThatThrownBy(() -> PageFormat.verify(page, Paths.get("f"), 3, PageType.LEAF, 7))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("unknown format version 3");
  }

  @Test
  void verify_version2OfABranch_isCorruption() {
    byte[] page = new byte[4096];
    SlottedPage.init(page, PageType.BRANCH, 1, 7, 9);
    assertThat(PageFormat.version(page)).isEqualTo(1);
    page[PageFormat.VERSION_OFFSET] = 2;
    PageFormat.seal(page);
    assertThatThrownBy(() -> PageFormat.verify(page, Paths.get("f"), 3, null, 7))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("unknown format version 2 for a BRANCH page");
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
    assertThat(SlottedPage.freeTotal(page)).isEqualTo(freeBefore + 2 + LeafPage.inlineCellSize(5, 3, EXPIRES_AT, 300));
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
