package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.io.StorageFile;
import org.kvstore.lsm.bloom.BloomFilter;
import org.kvstore.lsm.bloom.BloomFilterBuilder;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.BlockCompression;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.sstable.SstableReader;
import org.kvstore.lsm.sstable.SstableWriter;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.ManifestFormat;
import org.kvstore.lsm.version.ManifestReader;
import org.kvstore.lsm.version.VersionEdit;

/**
 * The worked examples of docs/format/{sstable,bloom,manifest}.md, byte for byte: each is built by
 * today's code and compared with {@code src/test/resources/golden/<x>-v1.bin}, then decoded again.
 * Regenerate (after a deliberate format change that also bumps the version and updates the docs)
 * with {@code -Dkvstore.rewriteGolden=true}.
 */
class GoldenFormatTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden");
  @TempDir Path dir;

  static byte[] sstableExample(Path dir) throws IOException {
    FileSystem fs = LocalFileSystem.INSTANCE;
    Path p = dir.resolve("000001.sst");
    StorageFile f = fs.open(p, FileSystem.OpenMode.CREATE_NEW);
    try (SstableWriter w = new SstableWriter(f, 4096, 0.01, BlockCompression.NONE)) {
      w.add(bytes("apple"), 1, ValueKind.PUT, bytes("red"));
      w.add(bytes("apricot"), 3, ValueKind.DELETE, null);
      w.finish();
    }
    return Files.readAllBytes(p);
  }

  static byte[] bloomExample() {
    BloomFilterBuilder b = new BloomFilterBuilder(0.01);
    b.add(bytes("apple"));
    b.add(bytes("apricot"));
    return b.finish();
  }

  static byte[] manifestExample() {
    VersionEdit e =
        new VersionEdit()
            .persistedLsn(7)
            .lastSeqNum(3)
            .nextFileNum(3)
            .addFile(0, new FileMetadata(1, 148, 2, bytes("apple"), bytes("apricot"), 1, 3));
    byte[] header = ManifestFormat.header();
    byte[] rec = ManifestFormat.encodeRecord(e);
    byte[] out = new byte[header.length + rec.length];
    System.arraycopy(header, 0, out, 0, header.length);
    System.arraycopy(rec, 0, out, header.length, rec.length);
    return out;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static void compareWithGolden(String name, byte[] actual) throws IOException {
    Path golden = GOLDEN.resolve(name);
    if (Boolean.getBoolean("kvstore.rewriteGolden")) {
      Files.createDirectories(GOLDEN);
      Files.write(golden, actual);
    }
    assertThat(actual).as("%s (regenerate with -Dkvstore.rewriteGolden=true)", golden)
        .isEqualTo(Files.readAllBytes(golden));
  }

  @Test
  void sstable_exampleOfTheDoc_matchesGoldenAndReadsBack() throws IOException {
    byte[] bytes = sstableExample(dir);
    compareWithGolden("sstable-v1.bin", bytes);
    Path copy = dir.resolve("sub");
    Files.createDirectories(copy);
    Files.write(copy.resolve("000009.sst"), Files.readAllBytes(GOLDEN.resolve("sstable-v1.bin")));
    try (OpenFiles files = new OpenFiles(LocalFileSystem.INSTANCE, copy, 4)) {
      SstableReader r = SstableReader.open(9, files, new BlockCache(1 << 20));
      assertThat(r.entryCount()).isEqualTo(2);
      Lookup apple = r.get(bytes("apple"), Long.MAX_VALUE >>> 8);
      assertThat(apple.kind()).isEqualTo(ValueKind.PUT);
      assertThat(apple.value()).isEqualTo(bytes("red"));
      assertThat(r.get(bytes("apricot"), 1L << 40).kind()).isEqualTo(ValueKind.DELETE);
    }
  }

  @Test
  void bloom_exampleOfTheDoc_matchesGolden() throws IOException {
    byte[] bytes = bloomExample();
    compareWithGolden("bloom-v1.bin", bytes);
    BloomFilter f = BloomFilter.decode(bytes);
    assertThat(f.mayContain(bytes("apple"))).isTrue();
    assertThat(f.mayContain(bytes("apricot"))).isTrue();
  }

  @Test
  void manifest_exampleOfTheDoc_matchesGoldenAndDecodes() throws IOException {
    byte[] bytes = manifestExample();
    compareWithGolden("manifest-v1.bin", bytes);
    List<VersionEdit> edits = ManifestReader.read(Path.of("manifest-v1.bin"), bytes);
    assertThat(edits).hasSize(1);
    VersionEdit e = edits.get(0);
    assertThat(e.persistedLsn()).isEqualTo(7);
    assertThat(e.lastSeqNum()).isEqualTo(3);
    assertThat(e.added()).hasSize(1);
    assertThat(e.added().get(0).file().largest()).isEqualTo(bytes("apricot"));
  }

  @Test
  void current_roundTrips_andRejectsAFlippedBit() {
    byte[] c = ManifestFormat.encodeCurrent("MANIFEST-000004");
    assertThat(new String(c, StandardCharsets.US_ASCII)).startsWith("KVSCURRENT 1 MANIFEST-000004 ");
    assertThat(ManifestFormat.decodeCurrent(c)).isEqualTo("MANIFEST-000004");
    c[20] ^= 1;
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ManifestFormat.decodeCurrent(c))
        .isInstanceOf(IllegalArgumentException.class);
  }

}
