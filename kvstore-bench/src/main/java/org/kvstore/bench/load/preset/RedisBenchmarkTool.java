package org.kvstore.bench.load.preset;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.bench.load.server.ServerHandle;

/**
 * Runs {@code redis-benchmark} as a child process with {@code --csv} and reads its figures per test
 * (throughput, average, p50 and p99 latency).
 *
 * <p>Thread safety: stateless.
 */
final class RedisBenchmarkTool {
  private RedisBenchmarkTool() {}

  /** One test's line: {@code "SET","rps","avg_latency_ms","min","p50","p95","p99","max"}. */
  record Line(String test, double rps, double avgMs, double p50Ms, double p99Ms, double maxMs) {}

  static Map<String, Line> run(Path exe, int port, String tests, long requests, int clients, int valueBytes)
      throws IOException, InterruptedException {
    List<String> cmd = List.of(exe.toString(), "-h", ServerHandle.HOST, "-p", Integer.toString(port), "-t", tests,
        "-n", Long.toString(requests), "-c", Integer.toString(clients), "-d", Integer.toString(valueBytes), "--csv");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = p.waitFor();
    if (code != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " exited with " + code + ": " + out);
    }
    return parse(out);
  }

  static Map<String, Line> parse(String csv) {
    Map<String, Line> lines = new LinkedHashMap<>();
    for (String line : csv.split("\r?\n|\r")) {
      String[] c = split(line);
      if (c.length < 8 || c[0].equals("test") || !c[1].matches("[0-9.]+|inf")) {
        continue;
      }
      // "inf": the run took less than redis-benchmark's millisecond clock resolves.
      lines.put(c[0], new Line(c[0], c[1].equals("inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(c[1]), Double.parseDouble(c[2]), Double.parseDouble(c[4]),
          Double.parseDouble(c[6]), Double.parseDouble(c[7])));
    }
    if (lines.isEmpty()) {
      throw new IllegalStateException("redis-benchmark printed no CSV result: " + csv);
    }
    return lines;
  }

  private static String[] split(String line) {
    List<String> cells = new ArrayList<>();
    for (String c : line.trim().split(",")) {
      cells.add(c.replace("\"", "").trim());
    }
    return cells.toArray(new String[0]);
  }
}
