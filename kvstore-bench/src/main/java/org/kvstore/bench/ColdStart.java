package org.kvstore.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;

/**
 * Cold start of a store holding N values of 4 KiB: the time from {@code KVStore.open} to the
 * first answered read, after a clean close and after a kill -9 that leaves LOG_MIB of log written
 * since the last checkpoint (default: the log size that starts a checkpoint,
 * {@link StoreOptions#checkpointLogBytes()}, the most a store leaves behind). Memtable flushes
 * during those writes bound what is replayed; the store logs the count it replays.
 *
 * <pre>
 * java -cp kvstore-bench/target/benchmarks.jar org.kvstore.bench.ColdStart DIR [ENGINE] [COUNT] [LOG_MIB]
 * </pre>
 *
 * The loading and the killed writer run in child JVMs ({@code load}, {@code crash} modes); the
 * parent times the opens. Not a test: the current figures are in docs/benchmarks.md, the runs in
 * kvstore-bench/results.
 */
public final class ColdStart {
  private static final int VALUE_BYTES = 4096;

  private ColdStart() {}

  public static void main(String[] args) throws Exception {
    if (args.length >= 1 && args[0].equals("--child")) {
      child(args);
      return;
    }
    Path dir = Path.of(args[0]);
    String engine = args.length > 1 ? args[1] : "lsm";
    int count = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
    long logBytes = args.length > 3 ? Long.parseLong(args[3]) << 20 : StoreOptions.defaults().checkpointLogBytes();
    BenchFiles.deleteTree(dir);
    long t0 = System.nanoTime();
    runChild("load", dir, engine, count, 0);
    System.out.printf("loaded %d x %d B into %s (%s) in %.1f s%n", count, VALUE_BYTES, dir, engine,
        (System.nanoTime() - t0) / 1e9);
    System.out.print("clean close: ");
    System.out.flush();
    runChild("open", dir, engine, count, 0);
    runChild("crash", dir, engine, count, logBytes);
    System.out.printf("kill -9 after %d MiB of log since the last checkpoint: ", logBytes >> 20);
    System.out.flush();
    runChild("open", dir, engine, count, 0);
  }

  /**
   * Times the open in a fresh JVM (as a server start is): the classes the open needs are loaded
   * and interpreted inside the timed span in both cases, not only in the first.
   */
  private static double timeOpen(Path dir, int count) {
    long start = System.nanoTime();
    try (KVStore store = KVStore.open(dir, StoreOptions.defaults())) {
      byte[] v = store.get("bench", "t", key(count / 2));
      double seconds = (System.nanoTime() - start) / 1e9;
      if (v == null || v.length != VALUE_BYTES) {
        throw new IllegalStateException("value of " + new String(key(count / 2)) + " is missing after the open");
      }
      return seconds;
    }
  }

  private static byte[] key(int i) {
    return String.format("key%010d", i).getBytes();
  }

  private static void runChild(String mode, Path dir, String engine, int count, long logBytes) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx4g", "-cp", System.getProperty("java.class.path"),
        ColdStart.class.getName(), "--child", mode, dir.toString(), engine, Integer.toString(count),
        Long.toString(logBytes)));
    Process p = new ProcessBuilder(cmd).inheritIO().start();
    int code = p.waitFor();
    if (code != 0 && !(mode.equals("crash") && code == 137)) {
      throw new IllegalStateException(mode + " child exited with " + code);
    }
  }

  private static void child(String[] args) throws Exception {
    String mode = args[1];
    Path dir = Path.of(args[2]);
    String engine = args[3];
    int count = Integer.parseInt(args[4]);
    long logBytes = Long.parseLong(args[5]);
    if (mode.equals("open")) {
      System.out.printf("open to first read %.3f s%n", timeOpen(dir, count));
      System.out.flush();
      return;
    }
    Random rnd = new Random(1);
    byte[] value = new byte[VALUE_BYTES];
    if (mode.equals("load")) {
      Files.createDirectories(dir);
      try (KVStore store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE).build())) {
        store.createDB("bench");
        store.createTable("bench", "t", engine, new Properties());
        Table t = store.table("bench", "t");
        for (int i = 0; i < count; i += 100) {
          WriteBatch b = new WriteBatch();
          for (int j = i; j < Math.min(count, i + 100); j++) {
            rnd.nextBytes(value);
            b.put(key(j), value);
          }
          t.write(b);
        }
      }
      return;
    }
    // crash: write logBytes of log after the last checkpoint, then die like kill -9 (no hooks, no flush).
    KVStore store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE)
        .checkpointInterval(Duration.ZERO).checkpointLogBytes(1L << 40).build());
    store.checkpoint();
    Table t = store.table("bench", "t");
    long written = 0;
    for (int i = 0; written < logBytes; i++) {
      rnd.nextBytes(value);
      t.put(key(rnd.nextInt(count)), value);
      written += VALUE_BYTES + 40;
    }
    Runtime.getRuntime().halt(137);
  }
}
