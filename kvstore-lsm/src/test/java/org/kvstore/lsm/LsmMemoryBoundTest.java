package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory is bounded by the properties, not by the table size: a child JVM with a 96 MiB heap writes
 * a table of more than 10 times its 4 MiB memtable (4 MiB block cache, 8 open files), then reads
 * every record back by get and by scan. The table has many more SSTables than the cap, so indexes
 * and filters are dropped and reloaded; the statistics show the cap held.
 */
class LsmMemoryBoundTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void tableOfTenMemtables_worksOnA96MiBHeap_andHonoursTheOpenFileCap() throws Exception {
    int records = (int) (10.5 * (4 << 20) / (12 + LsmMemoryWorker.VALUE_BYTES));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx96m", "-XX:+ExitOnOutOfMemoryError",
        "-cp", System.getProperty("java.class.path"), LsmMemoryWorker.class.getName(),
        dir.resolve("store").toString(), Integer.toString(records)));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    File err = dir.resolve("worker-stderr.log").toFile();
    pb.redirectError(ProcessBuilder.Redirect.to(err));
    Process p = pb.start();
    Map<String, Long> stats = new HashMap<>();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        lines.add(line);
        String[] f = line.split(" ");
        if (f.length == 3 && f[0].equals("STAT")) {
          stats.put(f[1], Long.parseLong(f[2]));
        }
      }
    }
    assertThat(p.waitFor(4, TimeUnit.MINUTES)).isTrue();
    String stderr = Files.readString(err.toPath());
    String tail = stderr.length() > 4000 ? stderr.substring(stderr.length() - 4000) : stderr;
    assertThat(p.exitValue()).as("worker exit; stderr tail:%n%s", tail).isZero();
    assertThat(lines).contains("OK");
    long files = 0;
    for (Map.Entry<String, Long> e : stats.entrySet()) {
      if (e.getKey().matches("level\\.\\d+\\.files")) {
        files += e.getValue();
      }
    }
    assertThat(files).as("SSTables, many more than the cap of 8").isGreaterThan(16);
    assertThat(stats.get("resident.readers")).isLessThanOrEqualTo(8L);
    assertThat(stats.get("open.files")).isLessThanOrEqualTo(8L);
    assertThat(stats.get("block.cache.bytes")).isLessThanOrEqualTo(4L << 20);
    assertThat(stats.get("bytes.user.written")).isGreaterThan(10L * (4 << 20));
  }
}
