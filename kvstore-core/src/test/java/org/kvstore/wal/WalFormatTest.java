package org.kvstore.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.Mutation;

/**
 * Ties docs/format/wal.md to the code: the doc's example (segment 1 starting at LSN 1, then one
 * record at LSN 1 for table 7 putting "key" = "value" and removing "old") must encode to the golden
 * bytes. Regenerate with {@code -Dkvstore.rewriteGolden=true} after a deliberate format change (and
 * bump {@link WalFormat#VERSION}).
 */
class WalFormatTest {
  static final Path GOLDEN = Path.of("src/test/resources/golden/wal-v1.bin");

  @TempDir Path dir;

  @Test
  void encode_docExample_matchesGoldenBytes() throws Exception {
    Path file = dir.resolve("000001.log");
    try (WalWriter w = new WalWriter(LocalFileSystem.INSTANCE.open(file, FileSystem.OpenMode.CREATE_NEW), 1, 0)) {
      w.frame(WalFormat.encodeSegmentHeader(1, 1), true);
      w.frame(WalFormat.encodeWrites(1, 7, List.of(Mutation.put("key".getBytes(), "value".getBytes()),
          Mutation.remove("old".getBytes()))), false);
      w.writeFramed();
    }
    byte[] actual = Files.readAllBytes(file);
    if (Boolean.getBoolean("kvstore.rewriteGolden")) {
      Files.write(GOLDEN, actual);
    }
    assertThat(actual).isEqualTo(Files.readAllBytes(GOLDEN));
    assertThat(actual).hasSize(7 + 28 + 7 + 20 + 1 + 4 + 3 + 4 + 5 + 1 + 4 + 3);
  }

  @Test
  void decode_goldenBytes_givesTheDocExample() throws Exception {
    Path walDir = dir.resolve("wal");
    Files.createDirectories(walDir);
    Files.copy(GOLDEN, walDir.resolve("000001.log"));
    List<WalFormat.WriteRecord> records = new java.util.ArrayList<>();
    WalRecovery.replay(LocalFileSystem.INSTANCE, walDir, org.kvstore.RecoveryMode.STRICT, records::add);
    assertThat(records).hasSize(1);
    assertThat(records.get(0).lsn()).isEqualTo(1);
    assertThat(records.get(0).tableId()).isEqualTo(7);
    assertThat(records.get(0).mutations().get(0).value()).isEqualTo("value".getBytes());
    assertThat(records.get(0).mutations().get(1).isRemove()).isTrue();
  }
}
