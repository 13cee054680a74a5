package org.kvstore.cluster.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.CorruptionException;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;

/**
 * Ties docs/format/shard-snapshot.md to the code (golden file {@code shard-snapshot-v1.bin}: term 3,
 * index 1234) and checks the atomic replace, through the file layer. Regenerate with {@code -Dkvstore.rewriteGolden=true}.
 */
class ShardSnapshotFileTest {
  static final Path GOLDEN = Path.of("src/test/resources/golden/shard-snapshot-v1.bin");
  private static final FileSystem FS = LocalFileSystem.INSTANCE;
  @TempDir Path dir;

  @Test
  void encode_docExample_matchesGoldenBytes() throws Exception {
    byte[] actual = ShardSnapshotFile.encode(new ShardSnapshotFile.Stamp(3, 1234));
    if (Boolean.getBoolean("kvstore.rewriteGolden")) {
      Files.createDirectories(GOLDEN.getParent());
      Files.write(GOLDEN, actual);
    }
    assertThat(actual).isEqualTo(Files.readAllBytes(GOLDEN));
  }

  @Test
  void decode_everyFlippedBit_fails() throws Exception {
    byte[] golden = Files.readAllBytes(GOLDEN);
    assertThat(ShardSnapshotFile.decode(GOLDEN, golden)).isEqualTo(new ShardSnapshotFile.Stamp(3, 1234));
    for (int bit = 0; bit < golden.length * 8; bit++) {
      byte[] bad = golden.clone();
      bad[bit / 8] ^= (byte) (1 << (bit % 8));
      assertThatThrownBy(() -> ShardSnapshotFile.decode(GOLDEN, bad)).isInstanceOf(CorruptionException.class);
    }
  }

  @Test
  void write_replacesTheStamp_andLeavesNoTemporaryFile() throws Exception {
    assertThat(ShardSnapshotFile.read(FS, dir)).isNull();
    ShardSnapshotFile.write(FS, dir, new ShardSnapshotFile.Stamp(1, 10));
    ShardSnapshotFile.write(FS, dir, new ShardSnapshotFile.Stamp(2, 20));
    assertThat(ShardSnapshotFile.read(FS, dir)).isEqualTo(new ShardSnapshotFile.Stamp(2, 20));
    assertThat(Files.exists(dir.resolve(ShardSnapshotFile.NAME + ShardSnapshotFile.TMP_SUFFIX))).isFalse();
  }

  @Test
  void read_leftoverTemporaryFile_isIgnored() throws Exception {
    ShardSnapshotFile.write(FS, dir, new ShardSnapshotFile.Stamp(1, 10));
    // a crash between writing the temporary file and the rename leaves it behind, half written
    Files.write(dir.resolve(ShardSnapshotFile.NAME + ShardSnapshotFile.TMP_SUFFIX), new byte[] {1, 2, 3});
    assertThat(ShardSnapshotFile.read(FS, dir)).isEqualTo(new ShardSnapshotFile.Stamp(1, 10));
  }

  @Test
  void write_throughTheFileLayer_syncsTheFileBeforeTheRenameAndTheDirectoryAfter() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    ShardSnapshotFile.write(fs, dir, new ShardSnapshotFile.Stamp(3, 1234));
    String tmp = ShardSnapshotFile.NAME + ShardSnapshotFile.TMP_SUFFIX;
    assertThat(fs.trace()).containsExactly(
        "open " + tmp + " READ_WRITE",
        "truncate " + tmp + " 0",
        "write " + tmp + " 0+" + ShardSnapshotFile.BYTES,
        "sync " + tmp,
        "rename " + tmp + " " + ShardSnapshotFile.NAME,
        "syncdir " + dir.getFileName());
    assertThat(Files.readAllBytes(dir.resolve(ShardSnapshotFile.NAME))).isEqualTo(Files.readAllBytes(GOLDEN));
  }

  @Test
  void write_crashBeforeTheRename_keepsTheOldStamp() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    ShardSnapshotFile.write(fs, dir, new ShardSnapshotFile.Stamp(1, 10));
    fs.crashAfter(4); // open, truncate, write and sync of the temporary file; the rename dies
    assertThatThrownBy(() -> ShardSnapshotFile.write(fs, dir, new ShardSnapshotFile.Stamp(2, 20)))
        .hasMessageContaining("injected");
    fs.heal();
    assertThat(ShardSnapshotFile.read(fs, dir)).isEqualTo(new ShardSnapshotFile.Stamp(1, 10));
  }
}
