package org.kvstore.testkit;

import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.Random;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;

/**
 * The child process of the crash test: opens the store, then writes from 8 threads until it is
 * killed. Each thread owns its keys and writes them in increasing versions; after every write
 * returns it appends {@code A <key> <version>} (or {@code A <key> <version> <key2> <version2>} for a
 * batch) to the acknowledgement file with one {@code write()}, so the parent knows what was
 * acknowledged (a file, not stdout, so that nothing else the JVM prints can tear a line). Values are {@link CrashValues}, some over 32
 * KiB so records span log blocks; odd versions carry an expiry ({@link CrashValues#expiryOf}). Checkpoints run often, so kills also land in them.
 *
 * <p>Arguments: {@code dir engine durability seed prefix ackFile [property=value ...]}.
 */
public final class CrashWorker {
  public static final String DB = "crash";
  public static final String TABLE = "t";
  static final int THREADS = 8;
  static final int KEYS_PER_THREAD = 50;

  private CrashWorker() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    String engine = args[1];
    Durability durability = Durability.parse(args[2]);
    long seed = Long.parseLong(args[3]);
    String prefix = args[4];
    Path ackFile = Path.of(args[5]);
    Properties props = new Properties();
    for (int i = 6; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      props.put(kv[0], kv[1]);
    }
    AckLog out = new AckLog(new FileOutputStream(ackFile.toFile(), true));
    KVStore store = KVStore.open(dir, StoreOptions.builder().durability(durability)
        .checkpointInterval(Duration.ofMillis(300)).build());
    if (!store.listDBs().contains(DB)) {
      store.createDB(DB);
    }
    if (!store.listTables(DB).contains(TABLE)) {
      store.createTable(DB, TABLE, engine, props);
    }
    Table table = store.table(DB, TABLE);
    out.println("READY");
    Thread[] threads = new Thread[THREADS];
    for (int t = 0; t < THREADS; t++) {
      int id = t;
      threads[t] = new Thread(() -> {
        Random rnd = new Random(seed * 31 + id);
        int[] versions = new int[KEYS_PER_THREAD];
        while (true) {
          int j = rnd.nextInt(KEYS_PER_THREAD);
          String key = prefix + "-" + id + "-" + j;
          int size = rnd.nextInt(20) == 0 ? 33_000 + rnd.nextInt(40_000) : 16 + rnd.nextInt(400);
          if (rnd.nextInt(10) == 0) {
            int j2 = (j + 1 + rnd.nextInt(KEYS_PER_THREAD - 1)) % KEYS_PER_THREAD;
            String key2 = prefix + "-" + id + "-" + j2;
            int v1 = versions[j] + 1;
            int v2 = versions[j2] + 1;
            table.write(new WriteBatch()
                .put(key.getBytes(StandardCharsets.UTF_8), CrashValues.encode(key, v1, size), CrashValues.optionsOf(key, v1))
                .put(key2.getBytes(StandardCharsets.UTF_8), CrashValues.encode(key2, v2, 16), CrashValues.optionsOf(key2, v2)));
            versions[j] = v1;
            versions[j2] = v2;
            out.println("A " + key + " " + v1 + " " + key2 + " " + v2);
          } else {
            int v = versions[j] + 1;
            table.put(key.getBytes(StandardCharsets.UTF_8), CrashValues.encode(key, v, size), CrashValues.optionsOf(key, v));
            versions[j] = v;
            out.println("A " + key + " " + v);
          }
        }
      }, "crash-writer-" + t);
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
  }

  /** Appends whole lines, each with one write() on an append-mode file. Thread safety: synchronized. */
  private static final class AckLog {
    private final FileOutputStream out;

    AckLog(FileOutputStream out) {
      this.out = out;
    }

    synchronized void println(String line) {
      try {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
