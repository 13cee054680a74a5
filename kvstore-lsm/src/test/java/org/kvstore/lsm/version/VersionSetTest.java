package org.kvstore.lsm.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.CorruptionException;
import org.kvstore.io.LocalFileSystem;

class VersionSetTest {
  @TempDir Path dir;
  private final List<Long> deleted = new ArrayList<>();

  private VersionSet open() throws IOException {
    return VersionSet.open(LocalFileSystem.INSTANCE, dir, 4, files -> files.forEach(f -> deleted.add(f.fileNum())));
  }

  private static FileMetadata file(long num, String lo, String hi) {
    return new FileMetadata(num, 100, 10, lo.getBytes(StandardCharsets.US_ASCII),
        hi.getBytes(StandardCharsets.US_ASCII), num, num);
  }

  private Path manifestPath(VersionSet vs) {
    return dir.resolve(ManifestFormat.manifestName(vs.manifestFileNum()));
  }

  @Test
  void edits_surviveReopen_andCountersOnlyGrow() throws IOException {
    VersionSet vs = open();
    long a = vs.newFileNum();
    vs.logAndApply(new VersionEdit().addFile(0, file(a, "a", "m")).persistedLsn(5).lastSeqNum(10));
    long b = vs.newFileNum();
    vs.logAndApply(new VersionEdit().addFile(0, file(b, "c", "z")).persistedLsn(9).lastSeqNum(20));
    long c = vs.newFileNum();
    vs.logAndApply(new VersionEdit().deleteFile(0, a).deleteFile(0, b).addFile(1, file(c, "a", "z")));
    vs.close();

    VersionSet re = open();
    assertThat(re.persistedLsn()).isEqualTo(9);
    assertThat(re.lastSeqNum()).isEqualTo(20);
    assertThat(re.current().files(0)).isEmpty();
    assertThat(re.current().files(1)).extracting(FileMetadata::fileNum).containsExactly(c);
    assertThat(re.newFileNum()).isGreaterThan(c);
    re.close();
  }

  @Test
  void tornLastRecord_isIgnored() throws IOException {
    VersionSet vs = open();
    long a = vs.newFileNum();
    vs.logAndApply(new VersionEdit().addFile(0, file(a, "a", "b")).persistedLsn(3));
    long b = vs.newFileNum();
    vs.logAndApply(new VersionEdit().addFile(0, file(b, "c", "d")).persistedLsn(4));
    Path m = manifestPath(vs);
    vs.close();
    byte[] bytes = Files.readAllBytes(m);
    for (int cut = 1; cut < 20; cut++) {
      Files.write(m, java.util.Arrays.copyOf(bytes, bytes.length - cut));
      List<VersionEdit> edits = ManifestReader.read(m, Files.readAllBytes(m));
      assertThat(edits).as("cut %d", cut).hasSize(2); // snapshot record + first edit
    }
    // A bad CRC of the last record, reaching to the end: torn, ignored.
    byte[] bad = bytes.clone();
    bad[bad.length - 1] ^= 1;
    assertThat(ManifestReader.read(m, bad)).hasSize(2);
  }

  @Test
  void damagedMiddleRecord_isCorruptionNamingManifestAndOffset() throws IOException {
    VersionSet vs = open();
    long a = vs.newFileNum();
    vs.logAndApply(new VersionEdit().addFile(0, file(a, "a", "b")).persistedLsn(3));
    long b = vs.newFileNum();
    vs.logAndApply(new VersionEdit().addFile(0, file(b, "c", "d")).persistedLsn(4));
    Path m = manifestPath(vs);
    vs.close();
    byte[] bytes = Files.readAllBytes(m);
    bytes[ManifestFormat.HEADER_BYTES + ManifestFormat.RECORD_HEADER_BYTES + 1] ^= 0x40;
    Files.write(m, bytes);
    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(CorruptionException.class, e -> {
          assertThat(e.path()).isEqualTo(m);
          assertThat(e.offset()).isEqualTo(ManifestFormat.HEADER_BYTES);
        });
  }

  @Test
  void damagedCurrent_isCorruption() throws IOException {
    open().close();
    Path cur = dir.resolve(ManifestFormat.CURRENT);
    byte[] b = Files.readAllBytes(cur);
    b[15] ^= 1;
    Files.write(cur, b);
    assertThatThrownBy(this::open).isInstanceOf(CorruptionException.class).hasMessageContaining("CURRENT");
  }

  @Test
  void filesOfReplacedVersions_areDeletedOnlyWhenTheLastPinIsReleased() throws IOException {
    VersionSet vs = open();
    long a = vs.newFileNum();
    vs.logAndApply(new VersionEdit().addFile(0, file(a, "a", "b")));
    Version pinned = vs.acquireCurrent();
    long b = vs.newFileNum();
    vs.logAndApply(new VersionEdit().deleteFile(0, a).addFile(1, file(b, "a", "b")));
    assertThat(deleted).isEmpty();
    pinned.unref();
    assertThat(deleted).containsExactly(a);
    vs.close();
  }

  @Test
  void manyEdits_rollTheManifest_andStillRecover() throws IOException {
    VersionSet vs = open();
    long first = vs.manifestFileNum();
    String longKey = "k".repeat(2000);
    for (int i = 0; i < 1500; i++) {
      long n = vs.newFileNum();
      vs.logAndApply(new VersionEdit().addFile(2, file(n, longKey + i, longKey + i)).persistedLsn(i));
      if (i > 0) {
        // keep the level small: drop the previous file
        long prev = vs.current().files(2).stream().mapToLong(FileMetadata::fileNum).min().orElseThrow();
        vs.logAndApply(new VersionEdit().deleteFile(2, prev));
      }
    }
    assertThat(vs.manifestFileNum()).isNotEqualTo(first);
    vs.close();
    VersionSet re = open();
    assertThat(re.persistedLsn()).isEqualTo(1499);
    assertThat(re.current().files(2)).hasSize(1);
    re.close();
    assertThat(Files.list(dir).map(p -> p.getFileName().toString()).filter(s -> s.startsWith("MANIFEST")))
        .hasSize(1);
  }
}
