package org.kvstore.lsm.sstable;

import java.util.Arrays;

/**
 * Run in a child JVM with a small {@code -XX:MaxDirectMemorySize}: puts far more than that through
 * a larger cache, checks every hit, and prints the cache's memory and {@code OK}.
 */
public final class DirectMemoryLimitWorker {
  private DirectMemoryLimitWorker() {}

  public static void main(String[] args) {
    BlockCache cache = new BlockCache(64L << 20);
    BlockBuffer buf = new BlockBuffer();
    int hits = 0;
    for (int i = 0; i < 20_000; i++) { // 80 MiB
      byte[] b = new byte[4096];
      Arrays.fill(b, (byte) i);
      cache.put(1, i, b, b.length);
      int j = i / 2;
      int len = cache.get(1, j, buf);
      if (len >= 0) {
        hits++;
        if (len != 4096 || buf.bytes()[0] != (byte) j || buf.bytes()[4095] != (byte) j) {
          throw new AssertionError("block " + j + " is wrong");
        }
      }
    }
    System.out.println("MEMORY " + cache.shared().offHeapBytes());
    System.out.println("HITS " + hits);
    System.out.println("OK");
  }
}
