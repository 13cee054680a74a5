package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
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
    assertThat(r.segments()).containsExactly(new LogCheck.Segment(seg, 1));
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
}
