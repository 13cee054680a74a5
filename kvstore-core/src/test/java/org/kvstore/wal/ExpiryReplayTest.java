package org.kvstore.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.KVStore;
import org.kvstore.RecoveryMode;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.Mutation;
import org.kvstore.testkit.FakeClock;
import org.kvstore.testkit.SnapshotTestEngine;

/**
 * Recovery rebuilds puts with the expiry their log records carry, under the record's LSN as their
 * version. The records are appended to the log of a closed store (as a store that crashed after
 * logging them would have left it), then the store is reopened with a clock the test moves.
 */
class ExpiryReplayTest {
  private static final long T0 = 1_767_225_600_000L;

  @TempDir Path dir;
  private final LocalFileSystem fs = LocalFileSystem.INSTANCE;
  private final FakeClock clock = new FakeClock(T0);

  /** What a scan shows of one entry. */
  private record Seen(String value, long version, long expiresAt) {}

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private KVStore open() {
    return KVStore.open(dir, StoreOptions.builder().clock(clock).checkpointInterval(Duration.ZERO)
        .recoveryMode(RecoveryMode.STRICT).build());
  }

  private static Map<String, Seen> scan(Table t) {
    Map<String, Seen> out = new LinkedHashMap<>();
    try (Cursor c = t.scan(null, null, 0)) {
      while (c.next()) {
        out.put(new String(c.key(), StandardCharsets.UTF_8),
            new Seen(new String(c.value(), StandardCharsets.UTF_8), c.version(), c.expiresAt()));
      }
    }
    return out;
  }

  /** Creates db.t on the snapshot engine with one plain put, closes the store; returns the table id. */
  private long createStoreWithOnePut() {
    try (KVStore store = open()) {
      store.createDB("db");
      store.createTable("db", "t", SnapshotTestEngine.NAME, new Properties());
      Table t = store.table("db", "t");
      t.put(b("before"), b("x"));
      return t.info().id();
    }
  }

  /** The log's segments and the LSN of its end, as the next open's recovery will see them. */
  private WalRecovery.Result logState() throws Exception {
    return WalRecovery.replay(fs, dir.resolve("wal"), RecoveryMode.STRICT, r -> {});
  }

  private static long endLsn(WalRecovery.Result r) {
    return Math.max(r.lastLsn(), r.segments().lastEntry().getValue() - 1);
  }

  private static int headerVersion(Path segment) throws Exception {
    return ByteBuffer.wrap(Files.readAllBytes(segment)).order(ByteOrder.LITTLE_ENDIAN).getInt(WalFormat.HEADER_BYTES + 8);
  }

  @Test
  void recover_expiringPutsInTheLog_comeBackWithTheirExpiryAndTheRecordLsnAsVersion() throws Exception {
    long tableId = createStoreWithOnePut();
    WalRecovery.Result before = logState();
    long end = endLsn(before);
    WriteAheadLog log = WriteAheadLog.open(fs, dir.resolve("wal"), 1 << 20, before.segments(), end);
    log.enqueue(end + 1, tableId, List.of(Mutation.put(b("later"), b("l"), T0 + 10_000)));
    log.enqueue(end + 2, tableId, List.of(Mutation.put(b("passed"), b("p"), T0 + 100)));
    log.enqueue(end + 3, tableId, List.of(Mutation.put(b("plain"), b("n")),
        Mutation.put(b("soon"), b("s"), T0 + 5_000), Mutation.remove(b("before"))));
    log.writeUpTo(end + 3);
    log.syncWritten();
    log.close();
    assertThat(headerVersion(dir.resolve("wal").resolve(WalFormat.segmentName(before.segments().lastKey() + 1))))
        .as("a new segment is version 2").isEqualTo(2);

    clock.set(T0 + 1_000); // "passed" expired while the store was closed
    try (KVStore store = open()) {
      Table t = store.table("db", "t");
      assertThat(scan(t)).containsExactly(
          Map.entry("later", new Seen("l", end + 1, T0 + 10_000)),
          Map.entry("plain", new Seen("n", end + 3, Entry.NO_EXPIRY)),
          Map.entry("soon", new Seen("s", end + 3, T0 + 5_000)));
      assertThat(t.get(b("passed"))).isNull();
      assertThat(t.get(b("before"))).isNull();

      clock.set(T0 + 5_000);
      assertThat(t.get(b("soon"))).as("present during its last millisecond").isEqualTo(b("s"));
      clock.set(T0 + 5_001);
      assertThat(scan(t)).containsOnlyKeys("later", "plain");
      clock.set(T0 + 10_001);
      assertThat(scan(t)).containsOnlyKeys("plain");
    }
  }

  @Test
  void recover_aVersion1SegmentThenAVersion2Segment_replaysBoth_andTheStoreWritesVersion2() throws Exception {
    long tableId = createStoreWithOnePut();
    WalRecovery.Result before = logState();
    long end = endLsn(before);
    Path walDir = dir.resolve("wal");
    long v1Number = before.segments().lastKey() + 1;
    // What a build of format version 1 left: a segment with its version in the header, plain puts.
    WalFormatTest.writeSegment(walDir.resolve(WalFormat.segmentName(v1Number)),
        WalFormatTest.segmentHeader(1, v1Number, end + 1),
        WalFormat.encodeWrites(end + 1, tableId, List.of(Mutation.put(b("old"), b("o")))),
        WalFormat.encodeWrites(end + 2, tableId, List.of(Mutation.put(b("old2"), b("o2")), Mutation.remove(b("before")))));
    WalRecovery.Result withV1 = logState();
    assertThat(withV1.records()).isEqualTo(before.records() + 2);
    WriteAheadLog log = WriteAheadLog.open(fs, walDir, 1 << 20, withV1.segments(), end + 2);
    log.enqueue(end + 3, tableId, List.of(Mutation.put(b("new"), b("v"), T0 + 60_000)));
    log.writeUpTo(end + 3);
    log.syncWritten();
    log.close();
    assertThat(headerVersion(walDir.resolve(WalFormat.segmentName(v1Number)))).isEqualTo(1);
    assertThat(headerVersion(walDir.resolve(WalFormat.segmentName(v1Number + 1)))).isEqualTo(2);

    try (KVStore store = open()) {
      Table t = store.table("db", "t");
      assertThat(scan(t)).containsExactly(
          Map.entry("new", new Seen("v", end + 3, T0 + 60_000)),
          Map.entry("old", new Seen("o", end + 1, Entry.NO_EXPIRY)),
          Map.entry("old2", new Seen("o2", end + 2, Entry.NO_EXPIRY)));
      t.put(b("after"), b("a"));
    }
    List<Integer> versions = new ArrayList<>();
    for (String name : fs.list(walDir).stream().sorted().toList()) {
      versions.add(headerVersion(walDir.resolve(name)));
    }
    assertThat(versions).as("segments left after the reopen").last().isEqualTo(2);
    try (KVStore store = open()) {
      assertThat(scan(store.table("db", "t"))).containsOnlyKeys("after", "new", "old", "old2");
    }
  }
}
