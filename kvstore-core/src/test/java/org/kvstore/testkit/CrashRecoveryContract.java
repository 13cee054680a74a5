package org.kvstore.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;

/**
 * The blackbox crash test of the embedded store: a child JVM ({@link CrashWorker}) writes
 * with {@code sync} durability from 8 threads; the parent kills it with SIGKILL at a random moment,
 * reopens the store, and checks against its oracle that every acknowledged write is there with its
 * value, that an in-flight write is either fully there or not, that batches are all-or-nothing, and
 * that no key holds a value that was never written. Each kill comes after at least
 * {@value #MIN_ACKS_BEFORE_KILL} acknowledged writes. 10 cycles in the default build, 500 under
 * {@code -Pcrash}. Engine modules subclass it with their engine.
 */
public abstract class CrashRecoveryContract {
  /**
   * Writes the worker must acknowledge before each kill. Without it a store that refuses every
   * write would pass: it loses nothing because it never promised anything.
   */
  static final int MIN_ACKS_BEFORE_KILL = 20;

  @TempDir protected Path dir;

  protected abstract String engineName();

  /** Table properties for the child (small sizes make flushes and compactions happen). */
  protected Properties tableProperties() {
    return new Properties();
  }

  /**
   * The worker JVM's maximum heap ({@code -Xmx}). Engines that keep their data on disk need little;
   * an engine that holds every value in the heap needs room for all the cycles' keys.
   */
  protected String workerMaxHeap() {
    return "512m";
  }

  protected int cycles() {
    return TestScale.current() == TestScale.CRASH ? 500 : 10;
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.HOURS)
  void killMinus9_atRandomMoments_losesNoAcknowledgedWrite() throws Exception {
    long seed = Seeds.seed(getClass().getSimpleName() + ".crash");
    Random rnd = new Random(seed);
    Map<String, Integer> oracle = new HashMap<>(); // key -> version the store must hold (0 = absent)
    for (int cycle = 0; cycle < cycles(); cycle++) {
      String prefix = "c" + cycle;
      Map<String, Integer> acked = new HashMap<>();
      List<String[]> batches = new ArrayList<>();
      Path ackFile = dir.resolve("acks-" + cycle + ".log");
      Process child = startWorker(rnd.nextLong(), prefix, ackFile);
      long runMillis = rnd.nextInt(1300);
      Path stderrLog = dir.resolve("worker-stderr.log");
      awaitReady(child, ackFile, stderrLog, 120_000);
      awaitAcks(child, ackFile, stderrLog, MIN_ACKS_BEFORE_KILL, 120_000);
      Thread.sleep(runMillis);
      child.destroyForcibly(); // SIGKILL
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      int acks = readAcks(ackFile, acked, batches);
      String context = "seed " + seed + " cycle " + cycle + " (reproduce with -Dkvstore.seed=" + seed + ")";
      assertThat(acks).as("%s: writes acknowledged before the kill", context)
          .isGreaterThanOrEqualTo(MIN_ACKS_BEFORE_KILL);
      verify(oracle, acked, batches, prefix, context);
      System.out.println(context + ": killed " + runMillis + " ms after " + MIN_ACKS_BEFORE_KILL + " acks, " + acked.size()
          + " keys acknowledged, " + oracle.size() + " keys verified");
    }
  }

  private Process startWorker(long seed, String prefix, Path ackFile) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + workerMaxHeap(), "-cp", System.getProperty("java.class.path"),
        CrashWorker.class.getName(), dir.toString(), engineName(), "sync", Long.toString(seed), prefix,
        ackFile.toString()));
    tableProperties().forEach((k, v) -> cmd.add(k + "=" + v));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectError(ProcessBuilder.Redirect.appendTo(new File(dir.toFile(), "worker-stderr.log")));
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(new File(dir.toFile(), "worker-stdout.log")));
    return pb.start();
  }

  /**
   * Reads the acknowledgement file of a dead worker; a torn last line counts as in flight. Returns
   * the acknowledged writes read.
   */
  private static int readAcks(Path ackFile, Map<String, Integer> acked, List<String[]> batches) throws Exception {
    int acks = 0;
    for (String line : java.nio.file.Files.readAllLines(ackFile, StandardCharsets.UTF_8)) {
      String[] f = line.split(" ");
      if (f[0].equals("A") && (f.length == 3 || f.length == 5)) {
        try {
          int v1 = Integer.parseInt(f[2]);
          int v2 = f.length == 5 ? Integer.parseInt(f[4]) : 0;
          acked.put(f[1], v1);
          if (f.length == 5) {
            acked.put(f[3], v2);
            batches.add(f);
          }
          acks++;
        } catch (NumberFormatException torn) {
          // the last line, cut by the kill
        }
      }
    }
    return acks;
  }

  /**
   * Waits until the worker acknowledged {@code n} writes: a kill before any acknowledgement checks
   * nothing, so a store that refuses every write would pass.
   */
  private static void awaitAcks(Process child, Path ackFile, Path stderrLog, int n, long millis) throws Exception {
    long deadline = System.currentTimeMillis() + millis;
    while (System.currentTimeMillis() < deadline) {
      if (countAckLines(ackFile) >= n) {
        return;
      }
      if (!child.isAlive()) {
        throw new AssertionError("the worker died after " + countAckLines(ackFile) + " of " + n
            + " acknowledged writes (exit code " + child.exitValue() + "); the end of its stderr:\n"
            + tail(stderrLog, 4000));
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the worker acknowledged only " + countAckLines(ackFile) + " of " + n + " writes within "
        + millis + " ms; the end of its stderr:\n" + tail(stderrLog, 4000));
  }

  private static long countAckLines(Path ackFile) throws Exception {
    try (var lines = java.nio.file.Files.lines(ackFile, StandardCharsets.UTF_8)) {
      return lines.filter(l -> l.startsWith("A ")).count();
    }
  }

  private static void awaitReady(Process child, Path ackFile, Path stderrLog, long millis) throws Exception {
    long deadline = System.currentTimeMillis() + millis;
    while (System.currentTimeMillis() < deadline) {
      if (java.nio.file.Files.exists(ackFile)
          && java.nio.file.Files.readString(ackFile, StandardCharsets.UTF_8).startsWith("READY\n")) {
        return;
      }
      if (!child.isAlive()) {
        // The temporary directory, and the log with it, is gone once the test ends: show its end here.
        throw new AssertionError("the worker died before opening the store (exit code " + child.exitValue()
            + "); the end of its stderr:\n" + tail(stderrLog, 4000));
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the worker did not open the store within " + millis + " ms; the end of its stderr:\n"
        + tail(stderrLog, 4000));
  }

  /** The last {@code chars} characters of a text file, or a note that it does not exist. */
  private static String tail(Path file, int chars) throws Exception {
    if (!java.nio.file.Files.exists(file)) {
      return "(no " + file + ")";
    }
    String text = java.nio.file.Files.readString(file, StandardCharsets.UTF_8);
    return text.length() <= chars ? text : text.substring(text.length() - chars);
  }

  private void verify(Map<String, Integer> oracle, Map<String, Integer> acked, List<String[]> batches,
      String prefix, String context) {
    try (KVStore store = KVStore.open(dir, StoreOptions.defaults())) {
      Table t = store.table(CrashWorker.DB, CrashWorker.TABLE);
      Map<String, Integer> found = new HashMap<>();
      try (Cursor c = t.scan(null, null, 0)) {
        while (c.next()) {
          String key = new String(c.key(), StandardCharsets.UTF_8);
          int version;
          try {
            version = CrashValues.versionOf(key, c.value());
          } catch (AssertionError e) {
            throw new AssertionError(context + ": " + e.getMessage(), e);
          }
          found.put(key, version);
          assertThat(c.expiresAt()).as("%s: expiry of %s version %d", context, key, version)
              .isEqualTo(CrashValues.expiryOf(key, version));
          assertThat(c.version()).as("%s: store version of %s", context, key).isPositive();
        }
      }
      // Earlier cycles' keys hold exactly what the last verification saw.
      for (Map.Entry<String, Integer> e : oracle.entrySet()) {
        assertThat(found.getOrDefault(e.getKey(), 0)).as("%s: key %s from an earlier cycle", context, e.getKey())
            .isEqualTo(e.getValue());
      }
      for (Map.Entry<String, Integer> e : found.entrySet()) {
        String key = e.getKey();
        if (!key.startsWith(prefix + "-")) {
          assertThat(oracle).as("%s: key %s was never written", context, key).containsKey(key);
          continue;
        }
        int last = acked.getOrDefault(key, 0);
        assertThat(e.getValue()).as("%s: key %s holds version %d, acked %d", context, key, e.getValue(), last)
            .isBetween(last, last + 1);
        assertThat(t.get(key.getBytes(StandardCharsets.UTF_8))).as("%s: get agrees with scan for %s", context, key)
            .isNotNull();
      }
      for (Map.Entry<String, Integer> e : acked.entrySet()) {
        assertThat(found.getOrDefault(e.getKey(), 0)).as("%s: acknowledged %s version %d", context, e.getKey(), e.getValue())
            .isGreaterThanOrEqualTo(e.getValue());
      }
      // A batch that was acknowledged is whole; the in-flight one is all or nothing.
      for (String[] b : batches) {
        assertThat(found.getOrDefault(b[1], 0)).isGreaterThanOrEqualTo(Integer.parseInt(b[2]));
        assertThat(found.getOrDefault(b[3], 0)).isGreaterThanOrEqualTo(Integer.parseInt(b[4]));
      }
      for (Map.Entry<String, Integer> e : found.entrySet()) {
        if (e.getKey().startsWith(prefix + "-")) {
          oracle.put(e.getKey(), e.getValue());
        }
      }
      for (String key : acked.keySet()) {
        oracle.putIfAbsent(key, found.getOrDefault(key, 0));
      }
    }
  }
}
