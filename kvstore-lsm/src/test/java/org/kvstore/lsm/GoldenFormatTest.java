package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Entry;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.io.StorageFile;
import org.kvstore.lsm.bloom.BloomFilter;
import org.kvstore.lsm.bloom.BloomFilterBuilder;
import org.kvstore.lsm.bloom.BloomFormat;
import org.kvstore.lsm.cursor.InternalCursor;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.BlockCompression;
import org.kvstore.lsm.sstable.FileStats;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.sstable.SstableReader;
import org.kvstore.lsm.sstable.SstableWriter;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.ManifestFormat;
import org.kvstore.lsm.version.ManifestReader;
import org.kvstore.lsm.version.VersionEdit;

/**
 * The worked examples of docs/format/{sstable,bloom,manifest}.md, byte for byte: each is built by
 * today's code and compared with {@code src/test/resources/golden/<x>-v<N>.bin} of the current
 * version N, then decoded again. Regenerate (after a deliberate format change that also bumps the
 * version and updates the docs) with {@code -Dkvstore.rewriteGolden=true}. The golden files of older
 * versions are no longer written by the code; they are only read, as a store of that version would
 * hold them.
 */
class GoldenFormatTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden");
  @TempDir Path dir;

  static byte[] sstableExample(Path dir) throws IOException {
    FileSystem fs = LocalFileSystem.INSTANCE;
    Path p = dir.resolve("000001.sst");
    StorageFile f = fs.open(p, FileSystem.OpenMode.CREATE_NEW);
    try (SstableWriter w = new SstableWriter(f, 4096, 0.01, BlockCompression.NONE)) {
      w.add(bytes("apple"), BloomFormat.hash(bytes("apple")), 1, ValueKind.PUT, bytes("red"), 5,
          Entry.NO_EXPIRY);
      w.add(bytes("apricot"), BloomFormat.hash(bytes("apricot")), 3, ValueKind.DELETE, null, 9,
          Entry.NO_EXPIRY);
      w.add(bytes("banana"), BloomFormat.hash(bytes("banana")), 2, ValueKind.PUT, bytes("yellow"), 6,
          EXPIRES_AT);
      w.finish();
    }
    return Files.readAllBytes(p);
  }

  /** The expiry time of the example's expiring entry: 2023-11-14T22:13:20Z. */
  static final long EXPIRES_AT = 1_700_000_000_000L;

  static byte[] bloomExample() {
    BloomFilterBuilder b = new BloomFilterBuilder(0.01);
    b.add(bytes("apple"));
    b.add(bytes("apricot"));
    return b.finish();
  }

  static byte[] manifestExample() {
    VersionEdit e =
        new VersionEdit()
            .persistedLsn(9)
            .lastSeqNum(3)
            .nextFileNum(3)
            .addFile(0, new FileMetadata(1, 179, 3, bytes("apple"), bytes("banana"), 1, 3,
                new FileStats(1, 1, EXPIRES_AT, EXPIRES_AT)));
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

  /** Opens the golden file {@code name} as SSTable 9 of a scratch directory. */
  private SstableReader openGoldenSstable(String name, OpenFiles[] holder) throws IOException {
    Path copy = dir.resolve("sub-" + name);
    Files.createDirectories(copy);
    Files.write(copy.resolve("000009.sst"), Files.readAllBytes(GOLDEN.resolve(name)));
    holder[0] = new OpenFiles(LocalFileSystem.INSTANCE, copy, 4);
    return SstableReader.open(9, holder[0], new BlockCache(1 << 20));
  }

  @Test
  void sstable_exampleOfTheDoc_matchesGoldenAndReadsBack() throws IOException {
    byte[] bytes = sstableExample(dir);
    compareWithGolden("sstable-v2.bin", bytes);
    OpenFiles[] files = new OpenFiles[1];
    try {
      SstableReader r = openGoldenSstable("sstable-v2.bin", files);
      assertThat(r.entryCount()).isEqualTo(3);
      Lookup apple = r.get(bytes("apple"), InternalKey.MAX_SEQ_NUM);
      assertThat(apple.kind()).isEqualTo(ValueKind.PUT);
      assertThat(apple.value()).isEqualTo(bytes("red"));
      assertThat(apple.version()).isEqualTo(5);
      assertThat(apple.expiresAt()).isEqualTo(Entry.NO_EXPIRY);
      Lookup apricot = r.get(bytes("apricot"), InternalKey.MAX_SEQ_NUM);
      assertThat(apricot.kind()).isEqualTo(ValueKind.DELETE);
      assertThat(apricot.version()).isEqualTo(9);
      Lookup banana = r.get(bytes("banana"), InternalKey.MAX_SEQ_NUM);
      assertThat(banana.value()).isEqualTo(bytes("yellow"));
      assertThat(banana.version()).isEqualTo(6);
      assertThat(banana.expiresAt()).isEqualTo(EXPIRES_AT);
      try (InternalCursor c = r.newCursor(false)) {
        List<String> seen = new ArrayList<>();
        for (c.seekToFirst(); c.isValid(); c.next()) {
          seen.add(new String(c.userKey(), StandardCharsets.US_ASCII) + "@" + c.seqNum() + ":" + c.kind()
              + " v" + c.version() + " x" + c.expiresAt() + " " + new String(c.value(), StandardCharsets.US_ASCII));
        }
        assertThat(seen).containsExactly(
            "apple@1:PUT v5 x0 red", "apricot@3:DELETE v9 x0 ", "banana@2:PUT v6 x" + EXPIRES_AT + " yellow");
      }
    } finally {
      files[0].close();
    }
  }

  @Test
  void sstable_version1GoldenFile_readsWithVersion0AndNoExpiry() throws IOException {
    OpenFiles[] files = new OpenFiles[1];
    try {
      SstableReader r = openGoldenSstable("sstable-v1.bin", files);
      assertThat(r.entryCount()).isEqualTo(2);
      Lookup apple = r.get(bytes("apple"), InternalKey.MAX_SEQ_NUM);
      assertThat(apple.kind()).isEqualTo(ValueKind.PUT);
      assertThat(apple.value()).isEqualTo(bytes("red"));
      assertThat(apple.version()).isZero();
      assertThat(apple.expiresAt()).isEqualTo(Entry.NO_EXPIRY);
      assertThat(r.get(bytes("apricot"), 1L << 40).kind()).isEqualTo(ValueKind.DELETE);
      try (InternalCursor c = r.newCursor(false)) {
        c.seekToFirst();
        assertThat(c.value()).isEqualTo(bytes("red"));
        assertThat(c.version()).isZero();
        assertThat(c.expiresAt()).isEqualTo(Entry.NO_EXPIRY);
        c.next();
        assertThat(c.kind()).isEqualTo(ValueKind.DELETE);
        c.next();
        assertThat(c.isValid()).isFalse();
      }
    } finally {
      files[0].close();
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
    compareWithGolden("manifest-v2.bin", bytes);
    List<VersionEdit> edits = ManifestReader.read(Path.of("manifest-v2.bin"), bytes);
    assertThat(edits).hasSize(1);
    VersionEdit e = edits.get(0);
    assertThat(e.persistedLsn()).isEqualTo(9);
    assertThat(e.lastSeqNum()).isEqualTo(3);
    assertThat(e.added()).hasSize(1);
    FileMetadata f = e.added().get(0).file();
    assertThat(f.largest()).isEqualTo(bytes("banana"));
    assertThat(f.stats()).isEqualTo(new FileStats(1, 1, EXPIRES_AT, EXPIRES_AT));
  }

  @Test
  void manifest_version1GoldenFile_decodesWithoutStats() throws IOException {
    byte[] bytes = Files.readAllBytes(GOLDEN.resolve("manifest-v1.bin"));
    List<VersionEdit> edits = ManifestReader.read(Path.of("manifest-v1.bin"), bytes);
    assertThat(edits).hasSize(1);
    VersionEdit e = edits.get(0);
    assertThat(e.persistedLsn()).isEqualTo(7);
    FileMetadata f = e.added().get(0).file();
    assertThat(f.largest()).isEqualTo(bytes("apricot"));
    assertThat(f.entries()).isEqualTo(2);
    assertThat(f.stats()).isEqualTo(FileStats.none());
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
