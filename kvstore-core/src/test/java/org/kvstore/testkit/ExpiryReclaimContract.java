package org.kvstore.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Active expiry gives the space back without reads: a child JVM on a 256 MiB heap
 * ({@link ExpiryReclaimWorker}) writes short-lived keys, lets them expire, and waits, reading
 * nothing, until the table's entry estimate and bytes on disk fall near zero. 100,000 keys in the
 * default build, a million under {@code -Psoak} (or {@code -Dkvstore.reclaim.keys=N}). The child's
 * report (how long it took, the CPU the active expiry spent) is printed. Engine modules subclass it.
 */
public abstract class ExpiryReclaimContract {
  @TempDir protected Path dir;

  protected abstract String engineName();

  protected Properties tableProperties() {
    return new Properties();
  }

  protected int keys() {
    Integer fixed = Integer.getInteger("kvstore.reclaim.keys");
    if (fixed != null) {
      return fixed;
    }
    return TestScale.current().isLongRun() ? 1_000_000 : 100_000;
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.MINUTES)
  void shortLivedKeys_areReclaimedWithoutReads_onA256MiBHeap() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-cp",
        System.getProperty("java.class.path"), ExpiryReclaimWorker.class.getName(),
        dir.resolve("store").toString(), engineName(), Integer.toString(keys())));
    tableProperties().forEach((k, v) -> cmd.add(k + "=" + v));
    Path out = dir.resolve("worker-out.log");
    Process child = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    boolean done = child.waitFor(15, TimeUnit.MINUTES);
    if (!done) {
      child.destroyForcibly();
    }
    List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
    String report = lines.stream().filter(l -> l.startsWith("loaded") || l.startsWith("reclaimed")
        || l.startsWith("timeout")).reduce("", (a, b) -> a + b + "\n");
    System.out.println(getClass().getSimpleName() + " (" + keys() + " keys):\n" + report);
    assertThat(done).as("worker finished; last lines:\n%s", tail(lines)).isTrue();
    assertThat(child.exitValue()).as("worker exit; last lines:\n%s", tail(lines)).isZero();
    assertThat(report).contains("reclaimed after_ms=");
  }

  private static String tail(List<String> lines) {
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
  }
}
