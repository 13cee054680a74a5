package org.kvstore.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.spi.Mutation;

/**
 * {@link WriteAheadLog#onUnsyncedBytes}: the periodic syncer is told once per limit's bytes written
 * without an fsync, and an fsync starts the count over.
 */
class WriteAheadLogUnsyncedBytesTest {
  private static final int LIMIT = 64 << 10;
  @TempDir Path dir;

  private static void write(WriteAheadLog log, long fromLsn, int records) throws Exception {
    for (long lsn = fromLsn; lsn < fromLsn + records; lsn++) {
      log.enqueue(lsn, 7, List.of(Mutation.put(("k" + lsn).getBytes(), new byte[1000])));
      log.writeUpTo(lsn);
    }
  }

  @Test
  void listenerIsToldOncePerLimitOfUnsyncedBytes_andASyncStartsOver() throws Exception {
    AtomicInteger told = new AtomicInteger();
    try (WriteAheadLog log = WriteAheadLog.open(LocalFileSystem.INSTANCE, dir, 64 << 20, new TreeMap<>(), 0)) {
      log.onUnsyncedBytes(LIMIT, told::incrementAndGet);
      write(log, 1, 60); // about 61 KiB: under the limit
      assertThat(told.get()).as("under the limit").isZero();
      write(log, 61, 10); // past it
      assertThat(told.get()).as("once past the limit").isEqualTo(1);
      write(log, 71, 30); // still unsynced, but less than another limit's bytes since the signal
      assertThat(told.get()).as("not on every write past the limit").isEqualTo(1);
      write(log, 101, 40); // another limit's bytes
      assertThat(told.get()).isEqualTo(2);

      log.syncWritten();
      int before = told.get();
      write(log, 141, 60); // under the limit since the sync
      assertThat(told.get()).as("a sync starts the count over").isEqualTo(before);
      write(log, 201, 10);
      assertThat(told.get()).isEqualTo(before + 1);
    }
  }

  @Test
  void aRollSyncsTheOldSegment_andStartsTheCountOver() throws Exception {
    AtomicInteger told = new AtomicInteger();
    try (WriteAheadLog log = WriteAheadLog.open(LocalFileSystem.INSTANCE, dir, 256 << 10, new TreeMap<>(), 0)) {
      log.onUnsyncedBytes(1 << 20, told::incrementAndGet); // more than a segment
      write(log, 1, 1000); // about 1 MiB over four segments: each roll syncs what came before it
      assertThat(log.segmentNumbers().size()).isGreaterThan(3);
      assertThat(told.get()).as("never a limit's bytes unsynced across rolls").isZero();
    }
  }
}
