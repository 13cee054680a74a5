package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.Mutation;
import org.kvstore.wal.WalFormat;
import org.kvstore.wal.WriteAheadLog;

class LogCheckTest {
  @TempDir Path dir;

  private Path writeTenRecords() throws Exception {
    WriteAheadLog log = WriteAheadLog.open(LocalFileSystem.INSTANCE, dir, 1 << 20, new TreeMap<>(), 0);
    for (long lsn = 1; lsn <= 10; lsn++) {
      log.enqueue(lsn, 1, List.of(Mutation.put(("k" + lsn).getBytes(), new byte[50])));
      log.writeUpTo(lsn);
    }
    log.close();
    return dir.resolve(WalFormat.segmentName(1));
  }

  @Test
  void check_intactLog_reportsEveryRecordAndNoTornTail() throws Exception {
    Path seg = writeTenRecords();
    LogCheck.Report r = LogCheck.check(dir, RecoveryMode.POINT_IN_TIME, false);
    assertThat(r.records()).isEqualTo(10);
    assertThat(r.lastLsn()).isEqualTo(10);
    assertThat(r.segments()).containsExactly(new LogCheck.Segment(seg, 1, WalFormat.VERSION));
    assertThat(r.mutations()).isEqualTo(new LogCheck.Mutations(10, 0, 0, 0, Entry.NO_EXPIRY));
    assertThat(r.okUpTo()).isEqualTo(Files.size(seg));
    assertThat(r.tornTail()).isNull();
    assertThat(r.diff()).isZero();
    assertThat(r.fixed()).isFalse();
  }

  @Test
  void check_tornTail_isReported_strictThrows_fixCutsIt() throws Exception {
    Path seg = writeTenRecords();
    byte[] bytes = Files.readAllBytes(seg);
    Files.write(seg, Arrays.copyOf(bytes, bytes.length - 20));
    long tornSize = Files.size(seg);

    LogCheck.Report r = LogCheck.check(dir, RecoveryMode.POINT_IN_TIME, false);
    assertThat(r.records()).isEqualTo(9);
    assertThat(r.tornTail()).isNotNull();
    assertThat(r.tornTail().segment()).isEqualTo(seg);
    assertThat(r.diff()).isPositive().isEqualTo(tornSize - r.tornTail().offset());
    assertThat(Files.size(seg)).as("a check without fix changes nothing").isEqualTo(tornSize);

    assertThatThrownBy(() -> LogCheck.check(dir, RecoveryMode.STRICT, false))
        .isInstanceOf(CorruptionException.class).hasMessageContaining(seg.toString());

    LogCheck.Report fixed = LogCheck.check(dir, RecoveryMode.POINT_IN_TIME, true);
    assertThat(fixed.fixed()).isTrue();
    assertThat(Files.size(seg)).isEqualTo(fixed.tornTail().offset());
    LogCheck.Report strict = LogCheck.check(dir, RecoveryMode.STRICT, false);
    assertThat(strict.records()).isEqualTo(9);
    assertThat(strict.tornTail()).isNull();
  }

  @Test
  void check_missingDirectory_isAnErrorNamingIt() {
    Path missing = dir.resolve("nope");
    assertThatThrownBy(() -> LogCheck.check(missing, RecoveryMode.POINT_IN_TIME, false))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining(missing.toString());
  }

  @Test
  void check_expiringPuts_areCountedWithThoseExpiredAtTheCheckAndTheLatestExpiry() throws Exception {
    long t0 = 1_767_225_600_000L;
    WriteAheadLog log = WriteAheadLog.open(LocalFileSystem.INSTANCE, dir, 1 << 20, new TreeMap<>(), 0);
    log.enqueue(1, 1, List.of(Mutation.put("a".getBytes(), new byte[1], t0 - 1), Mutation.put("b".getBytes(), new byte[1])));
    log.enqueue(2, 1, List.of(Mutation.put("c".getBytes(), new byte[1], t0)));
    log.enqueue(3, 1, List.of(Mutation.put("d".getBytes(), new byte[1], t0 + 60_000), Mutation.remove("b".getBytes())));
    log.writeUpTo(3);
    log.close();

    LogCheck.Report r = LogCheck.check(dir, RecoveryMode.STRICT, false, Clock.fixed(Instant.ofEpochMilli(t0), ZoneOffset.UTC));
    assertThat(r.records()).isEqualTo(3);
    // "a" expired a millisecond before the check; "c" expires at it, so it is still there.
    assertThat(r.mutations()).isEqualTo(new LogCheck.Mutations(1, 3, 1, 1, t0 + 60_000));
    assertThat(r.segments()).extracting(LogCheck.Segment::version).containsExactly(WalFormat.VERSION);
  }

  @Test
  void check_aVersion1Segment_isReadAndReportedAsVersion1() throws Exception {
    Path seg = dir.resolve(WalFormat.segmentName(1));
    Files.copy(Path.of("src/test/resources/golden/wal-v1.bin"), seg);
    LogCheck.Report r = LogCheck.check(dir, RecoveryMode.STRICT, false);
    assertThat(r.segments()).containsExactly(new LogCheck.Segment(seg, 1, 1));
    assertThat(r.mutations()).isEqualTo(new LogCheck.Mutations(1, 0, 1, 0, Entry.NO_EXPIRY));
  }

  @Test
  void check_anExpiringPutInAVersion1Segment_isCorruptionNamingFileAndOffset() throws Exception {
    // The v2 golden record behind a v1 header: the header version is at offset 15, covered by the
    // header fragment's checksum at offset 0.
    Path seg = dir.resolve(WalFormat.segmentName(1));
    byte[] v1 = Files.readAllBytes(Path.of("src/test/resources/golden/wal-v1.bin"));
    byte[] v2 = Files.readAllBytes(Path.of("src/test/resources/golden/wal-v2.bin"));
    byte[] mixed = v2.clone();
    System.arraycopy(v1, 0, mixed, 0, 35); // segment header fragment of version 1
    Files.write(seg, mixed);
    assertThatThrownBy(() -> LogCheck.check(dir, RecoveryMode.STRICT, false))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(seg.toString())
        .hasMessageContaining("offset 35")
        .hasMessageContaining("unknown kind 3 (log format version 1)");
  }
}
