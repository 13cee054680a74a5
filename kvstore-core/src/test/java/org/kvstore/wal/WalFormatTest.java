package org.kvstore.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.CorruptionException;
import org.kvstore.Entry;
import org.kvstore.RecoveryMode;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.Mutation;
import org.kvstore.stats.HistogramRecorder;
import org.kvstore.testkit.Seeds;

/**
 * Ties docs/format/wal.md to the code. Version 1's example (segment 1 starting at LSN 1, then one
 * record at LSN 1 for table 7 putting "key" = "value" and removing "old") is frozen: this build
 * must still read it, and still encode puts without expiry to the same bytes. Version 2's example
 * (the same record with "key" expiring at 2026-01-01T00:00:00Z, plus a put of "a" = "b" without
 * expiry) is what this build writes. Regenerate wal-v2.bin with {@code -Dkvstore.rewriteGolden=true}
 * after a deliberate format change (and bump {@link WalFormat#VERSION}: a new version gets a new
 * golden file, old ones are never rewritten).
 */
class WalFormatTest {
  static final Path GOLDEN_V1 = Path.of("src/test/resources/golden/wal-v1.bin");
  static final Path GOLDEN_V2 = Path.of("src/test/resources/golden/wal-v2.bin");
  /** 2026-01-01T00:00:00Z in milliseconds since the epoch: the v2 example's expiry. */
  static final long EXAMPLE_EXPIRY = 1_767_225_600_000L;

  @TempDir Path dir;

  /** A segment header of {@code version}, as a writer of that version framed it. */
  static byte[] segmentHeader(int version, long segmentNumber, long firstLsn) {
    ByteBuffer b = ByteBuffer.allocate(WalFormat.SEGMENT_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.put(WalFormat.MAGIC).putInt(version).putLong(segmentNumber).putLong(firstLsn);
    return b.array();
  }

  /** Writes a segment file of one header record and {@code records} payloads. */
  static void writeSegment(Path file, byte[] header, byte[]... records) throws Exception {
    try (WalWriter w = new WalWriter(LocalFileSystem.INSTANCE.open(file, FileSystem.OpenMode.CREATE_NEW), 1, 0,
        HistogramRecorder.forNanos())) {
      w.frame(header, true);
      for (byte[] r : records) {
        w.frame(r, false);
      }
      w.writeFramed();
    }
  }

  private static List<Mutation> v1Example() {
    return List.of(Mutation.put("key".getBytes(), "value".getBytes()), Mutation.remove("old".getBytes()));
  }

  private static List<Mutation> v2Example() {
    return List.of(Mutation.put("key".getBytes(), "value".getBytes(), EXAMPLE_EXPIRY),
        Mutation.put("a".getBytes(), "b".getBytes()), Mutation.remove("old".getBytes()));
  }

  private List<WalFormat.WriteRecord> replayGolden(Path golden, RecoveryMode mode) throws Exception {
    Path walDir = dir.resolve("wal");
    Files.createDirectories(walDir);
    Files.copy(golden, walDir.resolve("000001.log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    List<WalFormat.WriteRecord> records = new ArrayList<>();
    WalRecovery.replay(LocalFileSystem.INSTANCE, walDir, mode, records::add);
    return records;
  }

  @Test
  void encode_v1DocExampleUnderAVersion1Header_matchesGoldenV1Bytes() throws Exception {
    // Puts without expiry and removes encode as version 1 did: only the header's version differs.
    Path file = dir.resolve("000001.log");
    writeSegment(file, segmentHeader(1, 1, 1), WalFormat.encodeWrites(1, 7, v1Example()));
    byte[] actual = Files.readAllBytes(file);
    assertThat(actual).isEqualTo(Files.readAllBytes(GOLDEN_V1));
    assertThat(actual).hasSize(7 + 28 + 7 + 20 + 1 + 4 + 3 + 4 + 5 + 1 + 4 + 3);
  }

  @Test
  void decode_goldenV1Bytes_givesTheDocExampleWithoutExpiry() throws Exception {
    List<WalFormat.WriteRecord> records = replayGolden(GOLDEN_V1, RecoveryMode.STRICT);
    assertThat(records).hasSize(1);
    assertThat(records.get(0).lsn()).isEqualTo(1);
    assertThat(records.get(0).tableId()).isEqualTo(7);
    assertThat(records.get(0).mutations().get(0).key()).isEqualTo("key".getBytes());
    assertThat(records.get(0).mutations().get(0).value()).isEqualTo("value".getBytes());
    assertThat(records.get(0).mutations().get(0).expiresAt()).isEqualTo(Entry.NO_EXPIRY);
    assertThat(records.get(0).mutations().get(1).isRemove()).isTrue();
  }

  @Test
  void encode_v2DocExample_matchesGoldenV2Bytes() throws Exception {
    Path file = dir.resolve("000001.log");
    writeSegment(file, WalFormat.encodeSegmentHeader(1, 1), WalFormat.encodeWrites(1, 7, v2Example()));
    byte[] actual = Files.readAllBytes(file);
    if (Boolean.getBoolean("kvstore.rewriteGolden")) {
      Files.write(GOLDEN_V2, actual);
    }
    assertThat(actual).isEqualTo(Files.readAllBytes(GOLDEN_V2));
    // header fragment | record fragment header, prefix | PUT_EXPIRING | PUT | REMOVE
    assertThat(actual).hasSize(7 + 28 + 7 + 20 + (1 + 4 + 3 + 4 + 5 + 8) + (1 + 4 + 1 + 4 + 1) + (1 + 4 + 3));
    assertThat(ByteBuffer.wrap(actual).order(ByteOrder.LITTLE_ENDIAN).getInt(7 + 8)).as("header version").isEqualTo(2);
  }

  @Test
  void decode_goldenV2Bytes_givesTheDocExampleWithItsExpiry() throws Exception {
    List<WalFormat.WriteRecord> records = replayGolden(GOLDEN_V2, RecoveryMode.STRICT);
    assertThat(records).hasSize(1);
    WalFormat.WriteRecord r = records.get(0);
    assertThat(r.lsn()).isEqualTo(1);
    assertThat(r.tableId()).isEqualTo(7);
    assertThat(r.mutations()).hasSize(3);
    assertThat(r.mutations().get(0).key()).isEqualTo("key".getBytes());
    assertThat(r.mutations().get(0).value()).isEqualTo("value".getBytes());
    assertThat(r.mutations().get(0).expiresAt()).isEqualTo(EXAMPLE_EXPIRY);
    assertThat(r.mutations().get(1).key()).isEqualTo("a".getBytes());
    assertThat(r.mutations().get(1).value()).isEqualTo("b".getBytes());
    assertThat(r.mutations().get(1).expiresAt()).isEqualTo(Entry.NO_EXPIRY);
    assertThat(r.mutations().get(2).isRemove()).isTrue();
    assertThat(r.mutations().get(2).key()).isEqualTo("old".getBytes());
  }

  @Test
  void encodeThenDecode_expiringPuts_roundTripTheirExpiry() {
    List<Mutation> in = List.of(Mutation.put(new byte[0], new byte[0], 1), Mutation.put("k".getBytes(), "v".getBytes(), Long.MAX_VALUE),
        Mutation.put("n".getBytes(), "v".getBytes(), -5), Mutation.remove("r".getBytes()));
    List<Mutation> out = WalFormat.decodeWrites(WalFormat.encodeWrites(9, 3, in), WalFormat.VERSION).mutations();
    assertThat(out).extracting(Mutation::expiresAt).containsExactly(1L, Long.MAX_VALUE, -5L, Entry.NO_EXPIRY);
    assertThat(WalFormat.writesSize(in)).isEqualTo(WalFormat.encodeWrites(9, 3, in).length);
  }

  @Test
  void decode_expiringPutInAVersion1Segment_isCorruptionNamingFileAndOffset() throws Exception {
    Path walDir = dir.resolve("wal");
    Files.createDirectories(walDir);
    Path file = walDir.resolve("000001.log");
    writeSegment(file, segmentHeader(1, 1, 1), WalFormat.encodeWrites(1, 7, v1Example()),
        WalFormat.encodeWrites(2, 7, v2Example()));
    long secondRecord = 7 + 28 + 7 + 20 + 1 + 4 + 3 + 4 + 5 + 1 + 4 + 3;
    assertThatThrownBy(() -> WalRecovery.replay(LocalFileSystem.INSTANCE, walDir, RecoveryMode.STRICT, r -> {}))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("offset " + secondRecord)
        .hasMessageContaining("unknown kind 3 (log format version 1)");
  }

  @Test
  void decode_unknownSegmentVersion_isCorruption() throws Exception {
    for (int version : new int[] {0, WalFormat.VERSION + 1}) {
      Path walDir = dir.resolve("wal-" + version);
      Files.createDirectories(walDir);
      Path file = walDir.resolve("000001.log");
      writeSegment(file, segmentHeader(version, 1, 1), WalFormat.encodeWrites(1, 7, v1Example()));
      assertThatThrownBy(() -> WalRecovery.replay(LocalFileSystem.INSTANCE, walDir, RecoveryMode.SALVAGE, r -> {}))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("log format version " + version + " is not supported");
    }
  }

  @Test
  void decode_unknownMutationKind_isRejected() {
    byte[] payload = WalFormat.encodeWrites(1, 7, v2Example());
    payload[20] = 4; // the first mutation's kind
    assertThatThrownBy(() -> WalFormat.decodeWrites(payload, WalFormat.VERSION))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown kind 4");
  }

  @Test
  void decode_expiringPutWithZeroExpiry_isRejected() {
    byte[] payload = WalFormat.encodeWrites(1, 7, List.of(Mutation.put("k".getBytes(), "v".getBytes(), 42)));
    Arrays.fill(payload, payload.length - 8, payload.length, (byte) 0);
    assertThatThrownBy(() -> WalFormat.decodeWrites(payload, WalFormat.VERSION))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no expiry");
  }

  @Test
  void decode_everyTruncationOfARecordWithAnExpiringPut_isRejectedNeverACrash() {
    byte[] payload = WalFormat.encodeWrites(1, 7, List.of(Mutation.put("k".getBytes(), "v".getBytes(), EXAMPLE_EXPIRY)));
    for (int len = 0; len < payload.length; len++) {
      byte[] cut = Arrays.copyOf(payload, len);
      assertThatThrownBy(() -> WalFormat.decodeWrites(cut, WalFormat.VERSION))
          .as("cut to %d of %d bytes", len, payload.length)
          .isInstanceOf(IllegalArgumentException.class);
    }
    byte[] withoutLastExpiryByte = Arrays.copyOf(payload, payload.length - 1);
    assertThatThrownBy(() -> WalFormat.decodeWrites(withoutLastExpiryByte, WalFormat.VERSION))
        .hasMessageContaining("expiry of mutation 0 is truncated (7 of 8 bytes)");
  }

  @Test
  void decode_randomDamageToRecordsWithExpiringPuts_onlyEverThrowsIllegalArgument() {
    Random rnd = new Random(Seeds.seed("walDecodeFuzz"));
    List<Mutation> record = new ArrayList<>(v2Example());
    record.add(Mutation.put("x".repeat(40).getBytes(), new byte[300], EXAMPLE_EXPIRY + 1));
    byte[] payload = WalFormat.encodeWrites(5, 1, record);
    for (int trial = 0; trial < 20_000; trial++) {
      byte[] damaged = trial % 4 == 0 ? new byte[rnd.nextInt(96)] : payload.clone();
      if (trial % 4 == 0) {
        rnd.nextBytes(damaged);
      } else {
        for (int flips = 1 + rnd.nextInt(3); flips > 0; flips--) {
          damaged[rnd.nextInt(damaged.length)] = (byte) rnd.nextInt();
        }
        if (rnd.nextBoolean()) {
          damaged = Arrays.copyOf(damaged, rnd.nextInt(damaged.length + 16));
        }
      }
      for (int version = 1; version <= WalFormat.VERSION; version++) {
        try {
          WalFormat.WriteRecord r = WalFormat.decodeWrites(damaged, version);
          for (Mutation m : r.mutations()) {
            assertThat(m.expiresAt() != Entry.NO_EXPIRY && version < WalFormat.FIRST_VERSION_WITH_EXPIRY).as("an expiry in a version 1 record").isFalse();
          }
        } catch (IllegalArgumentException expected) {
          // the only way a decoder may refuse bytes
        }
      }
    }
  }
}
