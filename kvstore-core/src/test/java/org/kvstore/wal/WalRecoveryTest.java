package org.kvstore.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.CorruptionException;
import org.kvstore.Entry;
import org.kvstore.RecoveryMode;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.Mutation;
import org.kvstore.testkit.Seeds;

/**
 * The log tail-corruption matrix: truncations at every offset of the last three
 * records, zero and garbage tails, header bit flips, payload bit flips, damage before valid records,
 * damage in older segments and missing segments, under the three recovery modes. Every other record
 * is a put with an expiry ({@code PUT_EXPIRING}), the rest plain puts, so both kinds are damaged
 * and every recovered record is checked for its value and its expiry.
 */
class WalRecoveryTest {
  @TempDir Path dir;
  private final LocalFileSystem fs = LocalFileSystem.INSTANCE;

  /** LSN -> payload value of every record written, and each record's start offset. */
  private final List<Long> starts = new ArrayList<>();
  private final List<byte[]> values = new ArrayList<>();
  private final List<Long> expiries = new ArrayList<>();
  private Path segment;
  private byte[] original;

  private static byte[] value(int i, int size) {
    byte[] v = new byte[size];
    new Random(i).nextBytes(v);
    return v;
  }

  /** The expiry of the put at {@code lsn}: records of odd LSNs expire, the others do not. */
  private static long expiryOf(long lsn) {
    return lsn % 2 == 1 ? 1_767_225_600_000L + lsn : Entry.NO_EXPIRY;
  }

  /** Writes records 1..n; record n-1 is 40 KiB (spans blocks); returns the segment file. */
  private Path writeLog(Path walDir, int n, long firstLsn, long segmentBytes) throws IOException {
    WriteAheadLog log = WriteAheadLog.open(fs, walDir, segmentBytes, new TreeMap<>(), firstLsn - 1);
    for (int i = 0; i < n; i++) {
      long lsn = firstLsn + i;
      int size = i == n - 2 ? 40 * 1024 : 10 + i % 300;
      byte[] v = value((int) lsn, size);
      values.add(v);
      expiries.add(expiryOf(lsn));
      log.enqueue(lsn, 7, List.of(Mutation.put(("k" + lsn).getBytes(), v, expiryOf(lsn))));
      log.writeUpTo(lsn);
    }
    log.syncWritten();
    log.close();
    List<Path> segs = new ArrayList<>();
    for (String name : fs.list(walDir)) {
      segs.add(walDir.resolve(name));
    }
    return segs.get(segs.size() - 1);
  }

  @BeforeEach
  void setUp() throws IOException {
    segment = writeLog(dir, 30, 1, 64 << 20);
    original = Files.readAllBytes(segment);
    // Find record starts by replaying with offsets: a reader over the intact file.
    try (var f = fs.open(segment, org.kvstore.io.FileSystem.OpenMode.READ)) {
      WalReader r = new WalReader(f);
      for (WalReader.Item i = r.next(); i.kind() != WalReader.Kind.END; i = r.next()) {
        if (i.kind() == WalReader.Kind.RECORD) {
          starts.add(i.offset());
        }
      }
    }
    assertThat(starts).hasSize(30);
  }

  private List<WalFormat.WriteRecord> replay(RecoveryMode mode) throws IOException {
    List<WalFormat.WriteRecord> out = new ArrayList<>();
    WalRecovery.replay(fs, dir, mode, out::add);
    return out;
  }

  private void assertPrefix(List<WalFormat.WriteRecord> got, int expectedCount) {
    assertThat(got).hasSize(expectedCount);
    for (int i = 0; i < got.size(); i++) {
      assertThat(got.get(i).lsn()).isEqualTo(i + 1);
      assertAsWritten(got.get(i));
    }
  }

  /** The record's put has the value and expiry written at its LSN. */
  private void assertAsWritten(WalFormat.WriteRecord rec) {
    int i = (int) rec.lsn() - 1;
    assertThat(rec.mutations()).hasSize(1);
    assertThat(rec.mutations().get(0).value()).as("value at LSN %d", rec.lsn()).isEqualTo(values.get(i));
    assertThat(rec.mutations().get(0).expiresAt()).as("expiry at LSN %d", rec.lsn()).isEqualTo(expiries.get(i));
  }

  /** How many records lie entirely before {@code offset}. */
  private int recordsBefore(long offset) {
    int n = 0;
    for (int i = 0; i < starts.size(); i++) {
      long end = i + 1 < starts.size() ? starts.get(i + 1) : original.length;
      if (end <= offset) {
        n++;
      }
    }
    return n;
  }

  private List<Long> offsetsOfLastThree() {
    List<Long> offsets = new ArrayList<>();
    long from = starts.get(starts.size() - 3);
    long bigStart = starts.get(starts.size() - 2);
    long bigEnd = starts.get(starts.size() - 1);
    for (long o = from; o <= original.length; o++) {
      boolean inBigPayload = o >= bigStart + WalFormat.HEADER_BYTES && o < bigEnd;
      if (!inBigPayload || (o - bigStart) % 7 == 0) {
        offsets.add(o);
      }
    }
    return offsets;
  }

  private void restore() throws IOException {
    Files.write(segment, original);
  }

  @Test
  void truncationAtEveryOffsetOfTheLastRecords_recoversExactlyTheValidPrefix() throws IOException {
    for (long offset : offsetsOfLastThree()) {
      restore();
      try (var f = fs.open(segment, org.kvstore.io.FileSystem.OpenMode.READ_WRITE)) {
        f.truncate(offset);
      }
      int expected = recordsBefore(offset);
      assertPrefix(replay(RecoveryMode.POINT_IN_TIME), expected);
      assertPrefix(replay(RecoveryMode.SALVAGE), expected);
      boolean clean = offset == original.length || starts.contains(offset);
      if (!clean) {
        assertThatThrownBy(() -> replay(RecoveryMode.STRICT))
            .as("strict at offset %d", offset)
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining(segment.toString());
      }
    }
  }

  @Test
  void zeroFilledAndZeroExtendedTails_recoverTheValidPrefix() throws IOException {
    for (long offset : offsetsOfLastThree()) {
      if (offset % 5 != 0 && !starts.contains(offset)) {
        continue; // every fifth offset and every record start keeps the test quick
      }
      byte[] damaged = original.clone();
      for (int i = (int) offset; i < damaged.length; i++) {
        damaged[i] = 0;
      }
      byte[] extended = java.util.Arrays.copyOf(damaged, damaged.length + 4096);
      Files.write(segment, extended);
      assertPrefix(replay(RecoveryMode.POINT_IN_TIME), recordsBefore(offset));
    }
  }

  @Test
  void garbageTail_recoversTheValidPrefixAndTheCutMakesTheLogStrictClean() throws IOException {
    Random rnd = new Random(Seeds.seed("garbageTail"));
    for (int trial = 0; trial < 50; trial++) {
      long offset = starts.get(starts.size() - 3) + rnd.nextInt((int) (original.length - starts.get(starts.size() - 3)));
      byte[] damaged = original.clone();
      for (int i = (int) offset; i < damaged.length; i++) {
        damaged[i] = (byte) rnd.nextInt();
      }
      Files.write(segment, damaged);
      List<WalFormat.WriteRecord> got = new ArrayList<>();
      WalRecovery.Result result = WalRecovery.replay(fs, dir, RecoveryMode.POINT_IN_TIME, got::add);
      assertPrefix(got, recordsBefore(offset));
      WalRecovery.cutTail(fs, result);
      assertPrefix(replay(RecoveryMode.STRICT), recordsBefore(offset));
    }
  }

  @Test
  void bitFlipInTheHeaderOfEachOfTheLastThreeRecords_isDetected() throws IOException {
    for (int r = starts.size() - 3; r < starts.size(); r++) {
      long start = starts.get(r);
      for (int bit = 0; bit < WalFormat.HEADER_BYTES * 8; bit++) {
        byte[] damaged = original.clone();
        damaged[(int) start + bit / 8] ^= (byte) (1 << (bit % 8));
        Files.write(segment, damaged);
        boolean last = r == starts.size() - 1;
        if (last) {
          assertPrefix(replay(RecoveryMode.POINT_IN_TIME), r);
        } else {
          assertThatThrownBy(() -> replay(RecoveryMode.POINT_IN_TIME))
              .isInstanceOf(CorruptionException.class)
              .hasMessageContaining("hole");
        }
        List<WalFormat.WriteRecord> salvaged = replay(RecoveryMode.SALVAGE);
        assertThat(salvaged).extracting(WalFormat.WriteRecord::lsn).doesNotContain((long) r + 1);
        for (WalFormat.WriteRecord rec : salvaged) {
          assertAsWritten(rec);
        }
        assertThatThrownBy(() -> replay(RecoveryMode.STRICT)).isInstanceOf(CorruptionException.class);
      }
    }
  }

  @Test
  void randomPayloadBitFlips_neverYieldAWrongValue() throws IOException {
    Random rnd = new Random(Seeds.seed("payloadFlips"));
    for (int trial = 0; trial < 1000; trial++) {
      byte[] damaged = original.clone();
      int pos = starts.get(0).intValue() + rnd.nextInt(damaged.length - starts.get(0).intValue());
      damaged[pos] ^= (byte) (1 << rnd.nextInt(8));
      Files.write(segment, damaged);
      List<WalFormat.WriteRecord> got = new ArrayList<>();
      try {
        WalRecovery.replay(fs, dir, RecoveryMode.SALVAGE, got::add);
      } catch (CorruptionException e) {
        continue;
      }
      for (WalFormat.WriteRecord rec : got) {
        assertThat(rec.mutations().get(0).value()).as("trial %d flip at %d", trial, pos)
            .isEqualTo(values.get((int) rec.lsn() - 1));
        assertThat(rec.mutations().get(0).expiresAt()).as("trial %d flip at %d", trial, pos)
            .isEqualTo(expiries.get((int) rec.lsn() - 1));
      }
      assertThat(got.size()).isLessThan(30);
    }
  }

  @Test
  void damageBeforeValidRecords_failsPointInTimeNamingFileAndOffset_salvageSkipsIt() throws IOException {
    byte[] damaged = original.clone();
    long start = starts.get(10);
    damaged[(int) start + WalFormat.HEADER_BYTES + 3] ^= 0x40;
    Files.write(segment, damaged);
    assertThatThrownBy(() -> replay(RecoveryMode.POINT_IN_TIME))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(segment.toString())
        .hasMessageContaining("offset " + start)
        .hasMessageContaining("checksum mismatch")
        .hasMessageContaining("valid records follow");
    List<WalFormat.WriteRecord> salvaged = new ArrayList<>();
    WalRecovery.Result r = WalRecovery.replay(fs, dir, RecoveryMode.SALVAGE, salvaged::add);
    assertThat(r.skipped()).isGreaterThanOrEqualTo(1);
    // Salvage resumes at the next block: the damaged record and the rest of its block are skipped.
    assertThat(salvaged).extracting(WalFormat.WriteRecord::lsn).contains(10L, 30L).doesNotContain(11L);
  }

  @Test
  void damagedOlderSegment_orMissingSegment_failsUnlessSalvage() throws IOException {
    Path walDir = dir.resolve("multi");
    values.clear();
    expiries.clear();
    writeLog(walDir, 1500, 1, 64 << 10);
    List<String> names = fs.list(walDir);
    assertThat(names.size()).isGreaterThanOrEqualTo(3);
    Path older = walDir.resolve(names.get(0));
    byte[] bytes = Files.readAllBytes(older);
    bytes[bytes.length / 2] ^= 0x01;
    Files.write(older, bytes);
    assertThatThrownBy(() -> WalRecovery.replay(fs, walDir, RecoveryMode.POINT_IN_TIME, rec -> {}))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(older.toString());
    WalRecovery.replay(fs, walDir, RecoveryMode.SALVAGE, rec -> {});

    bytes[bytes.length / 2] ^= 0x01;
    Files.write(older, bytes); // repaired: now only the missing segment is wrong
    Files.delete(walDir.resolve(names.get(1)));
    assertThatThrownBy(() -> WalRecovery.replay(fs, walDir, RecoveryMode.POINT_IN_TIME, rec -> {}))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("missing");
    List<WalFormat.WriteRecord> salvaged = new ArrayList<>();
    WalRecovery.replay(fs, walDir, RecoveryMode.SALVAGE, salvaged::add);
    assertThat(salvaged).isNotEmpty();
    assertThat(salvaged.get(salvaged.size() - 1).lsn()).isEqualTo(1500);
  }

  @Test
  void unknownRecordType_failsUnlessMarkedSafeToIgnore() throws IOException {
    // Append a fragment of an unknown type after the valid records.
    for (int type : new int[] {0x17, 0x97}) {
      byte[] data = "future".getBytes();
      int leftInBlock = WalFormat.BLOCK_SIZE - original.length % WalFormat.BLOCK_SIZE;
      assertThat(leftInBlock).isGreaterThan(WalFormat.HEADER_BYTES + data.length);
      java.nio.ByteBuffer frag = java.nio.ByteBuffer.allocate(WalFormat.HEADER_BYTES + data.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      frag.putInt(WalFormat.crc((byte) type, data, 0, data.length)).putShort((short) data.length).put((byte) type).put(data);
      byte[] withFrag = java.util.Arrays.copyOf(original, original.length + frag.capacity());
      System.arraycopy(frag.array(), 0, withFrag, original.length, frag.capacity());
      Files.write(segment, withFrag);
      if (type == 0x97) {
        assertPrefix(replay(RecoveryMode.STRICT), 30);
      } else {
        assertThatThrownBy(() -> replay(RecoveryMode.STRICT)).hasMessageContaining("unknown record type 23");
      }
    }
  }

  /** Appends one FULL fragment with a sound checksum around {@code payload} to the segment. */
  private void appendRecord(byte[] base, byte[] payload) throws IOException {
    int leftInBlock = WalFormat.BLOCK_SIZE - base.length % WalFormat.BLOCK_SIZE;
    assertThat(leftInBlock).isGreaterThan(WalFormat.HEADER_BYTES + payload.length);
    java.nio.ByteBuffer frag = java.nio.ByteBuffer.allocate(WalFormat.HEADER_BYTES + payload.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    frag.putInt(WalFormat.crc(WalFormat.FULL, payload, 0, payload.length)).putShort((short) payload.length).put(WalFormat.FULL).put(payload);
    byte[] out = java.util.Arrays.copyOf(base, base.length + frag.capacity());
    System.arraycopy(frag.array(), 0, out, base.length, frag.capacity());
    Files.write(segment, out);
  }

  @Test
  void recordWithATruncatedExpiry_isDamageAtItsOffset_cutAsATornTailOrFailingBeforeAValidRecord() throws IOException {
    byte[] whole = WalFormat.encodeWrites(31, 7, List.of(Mutation.put("k31".getBytes(), "v".getBytes(), 1_767_225_600_031L)));
    for (int missing = 1; missing <= 8; missing++) {
      byte[] cut = java.util.Arrays.copyOf(whole, whole.length - missing);
      appendRecord(original, cut); // its checksum is sound: only decoding can find the damage
      int m = missing;
      assertThatThrownBy(() -> replay(RecoveryMode.STRICT))
          .as("%d bytes of the expiry missing", m)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(segment.toString())
          .hasMessageContaining("offset " + original.length)
          .hasMessageContaining(missing == 8 ? "expiry of mutation 0 is truncated (0 of 8 bytes)" : "expiry of mutation 0 is truncated");
      List<WalFormat.WriteRecord> got = new ArrayList<>();
      WalRecovery.Result result = WalRecovery.replay(fs, dir, RecoveryMode.POINT_IN_TIME, got::add);
      assertPrefix(got, 30);
      assertThat(result.tailCut()).isNotNull();
      assertThat(result.tailCut().offset()).isEqualTo(original.length);
      assertPrefix(replay(RecoveryMode.SALVAGE), 30);
    }
    // Followed by a valid record, the same damage is a hole.
    byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 3);
    appendRecord(original, cut);
    byte[] withHole = Files.readAllBytes(segment);
    appendRecord(withHole, WalFormat.encodeWrites(32, 7, List.of(Mutation.put("k32".getBytes(), "v".getBytes(), 99))));
    assertThatThrownBy(() -> replay(RecoveryMode.POINT_IN_TIME))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("offset " + original.length)
        .hasMessageContaining("hole: 1 valid records follow");
  }

  @Test
  void aGroupOfRecordsOfMixedSizes_writtenInOneRound_replaysByteForByte() throws IOException {
    // Records are encoded by the round's leader into one reused buffer: a small record after a
    // larger one, and one after a record far beyond the buffer's size, must not carry stale bytes.
    Path groupDir = dir.resolve("group");
    fs.createDirectories(groupDir);
    int[] sizes = {10, 200 * 1024, 3, 0, 5 << 20, 17, 64 * 1024, 64 * 1024 - 40, 1};
    WriteAheadLog log = WriteAheadLog.open(fs, groupDir, 64 << 20, new TreeMap<>(), 0);
    List<List<Mutation>> written = new ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      List<Mutation> record = i % 3 == 2
          ? List.of(Mutation.remove(("gone" + i).getBytes()), Mutation.put(("k" + i).getBytes(), value(i, sizes[i]), 1000 + i))
          : List.of(Mutation.put(("k" + i).getBytes(), value(i, sizes[i]), i % 2 == 0 ? Entry.NO_EXPIRY : 2000 + i));
      written.add(record);
      log.enqueue(i + 1, 100 + i, record);
    }
    log.writeUpTo(sizes.length); // one round: every record above is framed by this call
    log.syncWritten();
    log.close();

    List<WalFormat.WriteRecord> out = new ArrayList<>();
    WalRecovery.replay(fs, groupDir, RecoveryMode.STRICT, out::add);
    assertThat(out).hasSize(sizes.length);
    for (int i = 0; i < sizes.length; i++) {
      WalFormat.WriteRecord r = out.get(i);
      assertThat(r.lsn()).isEqualTo(i + 1);
      assertThat(r.tableId()).isEqualTo(100 + i);
      assertThat(r.mutations()).hasSameSizeAs(written.get(i));
      for (int m = 0; m < r.mutations().size(); m++) {
        Mutation got = r.mutations().get(m);
        Mutation want = written.get(i).get(m);
        assertThat(got.isRemove()).as("record %d mutation %d", i, m).isEqualTo(want.isRemove());
        assertThat(got.key()).as("record %d mutation %d key", i, m).isEqualTo(want.key());
        assertThat(got.value()).as("record %d mutation %d value", i, m).isEqualTo(want.value());
        assertThat(got.expiresAt()).as("record %d mutation %d expiry", i, m).isEqualTo(want.expiresAt());
      }
    }
  }
}
