package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
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

class CheckMainTest {
  @TempDir Path dir;

  private String check(int expectedExit, String... args) {
    StringWriter s = new StringWriter();
    int code = CheckMain.run(new PrintWriter(s), args);
    assertThat(code).as(s.toString()).isEqualTo(expectedExit);
    return s.toString();
  }

  @Test
  void run_reportsTornTail_fixCutsIt_andStrictThenPasses() throws Exception {
    WriteAheadLog log = WriteAheadLog.open(LocalFileSystem.INSTANCE, dir, 1 << 20, new TreeMap<>(), 0);
    for (long lsn = 1; lsn <= 10; lsn++) {
      long expiresAt = lsn > 8 ? 1000 + lsn : 0; // the last two expired long ago
      log.enqueue(lsn, 1, List.of(Mutation.put(("k" + lsn).getBytes(), new byte[50], expiresAt)));
      log.writeUpTo(lsn);
    }
    log.close();
    Path seg = dir.resolve(WalFormat.segmentName(1));
    assertThat(check(0, dir.toString())).contains(seg + ": first LSN 1, format version " + WalFormat.VERSION,
        "records=10", "puts=8 expiring_puts=2 expired_now=2 latest_expiry=1010 removes=0", "status: ok");
    byte[] bytes = Files.readAllBytes(seg);
    Files.write(seg, Arrays.copyOf(bytes, bytes.length - 20));
    assertThat(check(0, dir.toString())).contains("records=9", "torn tail");
    assertThat(check(1, dir.toString(), "--mode", "strict")).contains("status: corrupt", seg.toString());
    assertThat(check(0, dir.toString(), "--fix")).contains("fixed: cut");
    assertThat(check(0, dir.toString(), "--mode", "strict")).contains("records=9", "status: ok");
  }

  @Test
  void run_badUsage_exits2_andAnUnreadableDirectoryExits1() {
    assertThat(check(2)).contains("Usage: kvstore-check");
    assertThat(check(2, dir.toString(), "--mode", "sometimes")).contains("--mode");
    assertThat(check(1, dir.resolve("missing").toString())).contains("kvstore-check:");
  }
}
