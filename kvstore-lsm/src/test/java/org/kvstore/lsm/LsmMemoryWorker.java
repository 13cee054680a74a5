package org.kvstore.lsm;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import org.kvstore.Cursor;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;

/**
 * The child JVM of {@link LsmMemoryBoundTest}: on a small heap, writes {@code records} 12-byte keys
 * with 500-byte values (many times the memtable), reads every one back by get and by one scan, and
 * prints {@code STAT name value} lines and {@code OK} on stdout; any failure exits non-zero.
 */
public final class LsmMemoryWorker {
  static final int VALUE_BYTES = 500;

  private LsmMemoryWorker() {}

  static byte[] key(int i) {
    return String.format("%012d", i).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    long x = i * 0x9E3779B97F4A7C15L + 1;
    for (int j = 0; j < v.length; j++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      v[j] = (byte) x;
    }
    return v;
  }

  /** Properties that bound memory: 4 MiB memtable, 4 MiB cache, 8 open files. */
  static Properties properties() {
    Properties p = new Properties();
    p.put("memtable.size", "4MiB");
    p.put("block.cache.size", "4MiB");
    p.put("max.open.files", "8");
    p.put("target.file.size", "1MiB");
    p.put("level1.max.size", "4MiB");
    return p;
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int records = Integer.parseInt(args[1]);
    int[] order = new int[records];
    for (int i = 0; i < records; i++) {
      order[i] = i;
    }
    java.util.Random rnd = new java.util.Random(42);
    for (int i = records - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    try (KVStore store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE).build())) {
      store.createDB("db");
      store.createTable("db", "t", LsmEngine.NAME, properties());
      Table t = store.table("db", "t");
      for (int i : order) {
        t.put(key(i), value(i));
      }
      for (int i : order) {
        byte[] v = t.get(key(i));
        if (!Arrays.equals(v, value(i))) {
          throw new AssertionError("key " + i + " reads back wrong: " + (v == null ? "null" : v.length + " bytes"));
        }
      }
      int n = 0;
      try (Cursor c = t.scan(null, null, 0)) {
        while (c.next()) {
          if (!Arrays.equals(c.key(), key(n)) || !Arrays.equals(c.value(), value(n))) {
            throw new AssertionError("scan position " + n + " is wrong");
          }
          n++;
        }
      }
      if (n != records) {
        throw new AssertionError("scan saw " + n + " of " + records + " records");
      }
      for (Map.Entry<String, Long> e : t.info().engineStats().entrySet()) {
        System.out.println("STAT " + e.getKey() + " " + e.getValue());
      }
      Runtime rt = Runtime.getRuntime();
      System.out.println("STAT heap.max " + rt.maxMemory());
    }
    System.out.println("OK");
  }
}
