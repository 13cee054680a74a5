package org.kvstore.lsm.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.testkit.Seeds;

/**
 * The block cache against a map model: exact hits (by content, copied out of the cache's direct
 * memory), byte accounting, eviction, file drops, the memory bound and its release.
 */
class BlockCacheTest {
  /** Block contents of {@code bytes} bytes whose every byte derives from {@code tag}. */
  private static byte[] contents(long tag, int bytes) {
    byte[] b = new byte[bytes];
    for (int i = 0; i < bytes; i++) {
      b[i] = (byte) (tag * 31 + i * 7);
    }
    return b;
  }

  private static void put(BlockCache cache, long file, long offset, byte[] contents) {
    cache.put(file, offset, contents, contents.length);
  }

  /** The cached contents, copied out, or {@code null}. */
  private static byte[] get(BlockCache cache, long file, long offset) {
    BlockBuffer buf = new BlockBuffer();
    int len = cache.get(file, offset, buf);
    return len < 0 ? null : Arrays.copyOf(buf.bytes(), len);
  }

  private static long addr(long fileNum, long offset) {
    return fileNum << 32 | offset;
  }

  @Test
  void randomOperations_matchAModel() {
    long seed = Seeds.seed("BlockCacheTest.randomOperations_matchAModel");
    Random rnd = new Random(seed);
    long capacity = 256L << 10;
    BlockCache cache = new BlockCache(capacity);
    Map<Long, byte[]> model = new HashMap<>(); // every block ever put and not dropped with its file
    for (int op = 0; op < 200_000; op++) {
      long file = 1 + rnd.nextInt(8);
      long offset = 4096L * rnd.nextInt(200);
      int r = rnd.nextInt(100);
      if (r < 45) {
        byte[] b = contents(op, 512 + rnd.nextInt(4096));
        put(cache, file, offset, b);
        model.put(addr(file, offset), b);
        assertThat(get(cache, file, offset)).as("seed %d: just put", seed).isEqualTo(b);
      } else if (r < 99) {
        byte[] got = get(cache, file, offset);
        if (got != null) {
          assertThat(got).as("seed %d: file %d offset %d", seed, file, offset)
              .isEqualTo(model.get(addr(file, offset)));
        }
      } else {
        cache.evictFile(file);
        model.keySet().removeIf(k -> k >>> 32 == file);
        assertThat(cache.cachedBytes(file)).as("seed %d", seed).isZero();
        assertThat(get(cache, file, offset)).as("seed %d", seed).isNull();
      }
      if (op % 10_000 == 0) {
        long sum = 0;
        for (long f = 1; f <= 8; f++) {
          sum += cache.cachedBytes(f);
        }
        assertThat(cache.usedBytes()).as("seed %d: accounting", seed).isEqualTo(sum);
        assertThat(cache.usedBytes()).as("seed %d: bound", seed).isLessThanOrEqualTo(capacity);
        assertThat(cache.shared().offHeapBytes()).as("seed %d: memory bound", seed).isLessThanOrEqualTo(capacity);
      }
    }
    // Everything still cached is found, and is what was put last.
    int found = 0;
    for (Map.Entry<Long, byte[]> e : model.entrySet()) {
      byte[] got = get(cache, e.getKey() >>> 32, e.getKey() & 0xFFFFFFFFL);
      if (got != null) {
        assertThat(got).as("seed %d", seed).isEqualTo(e.getValue());
        found++;
      }
    }
    assertThat((long) found).as("seed %d", seed).isEqualTo(cache.size());
    assertThat(found).as("seed %d: the cache holds blocks", seed).isGreaterThan(20);
  }

  @Test
  void aWorkingSetReadBetweenColdInsertsStaysCached() {
    BlockCache cache = new BlockCache(1L << 20); // about 250 blocks of 4 KiB
    int hot = 64;
    for (int i = 0; i < hot; i++) {
      put(cache, 1, 4096L * i, contents(i, 4096));
    }
    for (int round = 0; round < 2_000; round++) {
      for (int i = 0; i < hot; i++) {
        assertThat(get(cache, 1, 4096L * i)).as("hot block %d in round %d", i, round).isEqualTo(contents(i, 4096));
      }
      put(cache, 2, 4096L * round, contents(round, 4096)); // a cold block, never read again
    }
    assertThat(cache.usedBytes()).isLessThanOrEqualTo(1L << 20);
    assertThat(cache.cachedBytes(2)).isPositive();
    assertThat(get(cache, 2, 0)).as("the first cold block, long passed through").isNull();
  }

  @Test
  void zeroCapacity_holdsNothing() {
    BlockCache cache = new BlockCache(0);
    put(cache, 1, 0, contents(1, 100));
    assertThat(get(cache, 1, 0)).isNull();
    assertThat(cache.admit(1, 0)).isFalse();
    assertThat(cache.usedBytes()).isZero();
    assertThat(cache.shared().offHeapBytes()).isZero();
  }

  @Test
  void aBlockLargerThanARegion_isNotCached_andOthersAre() {
    BlockCache cache = new BlockCache(1L << 20); // regions of 64 KiB
    put(cache, 1, 0, contents(1, 200 << 10));
    put(cache, 1, 1, contents(2, 4096));
    assertThat(get(cache, 1, 0)).isNull();
    assertThat(get(cache, 1, 1)).isEqualTo(contents(2, 4096));
    assertThat(cache.usedBytes()).isEqualTo(4096);
  }

  @Test
  void memoryIsAllocatedUpToTheCapacity_andLetGoWhenTheLastViewCloses() {
    long before = SharedBlockCache.offHeapBytesAllocated();
    SharedBlockCache shared = new SharedBlockCache(8L << 20);
    BlockCache a = shared.newView(false);
    BlockCache b = shared.newView(true);
    assertThat(shared.offHeapBytes()).as("nothing before the first block").isZero();
    for (int i = 0; i < 10_000; i++) { // 40 MiB through an 8 MiB cache
      put(a, 1 + i / 1000, 4096L * i, contents(i, 4096));
      assertThat(shared.offHeapBytes()).isLessThanOrEqualTo(8L << 20);
    }
    put(b, 1, 0, contents(7, 100));
    assertThat(shared.offHeapBytes()).isEqualTo(8L << 20);
    assertThat(SharedBlockCache.offHeapBytesAllocated() - before).isEqualTo(8L << 20);
    a.close();
    assertThat(shared.offHeapBytes()).as("another view is open").isEqualTo(8L << 20);
    assertThat(get(b, 1, 0)).isEqualTo(contents(7, 100));
    b.close();
    assertThat(shared.offHeapBytes()).isZero();
    assertThat(shared.usedBytes()).isZero();
    assertThat(SharedBlockCache.offHeapBytesAllocated() - before).isZero();
    // A view made later starts over.
    BlockCache c = shared.newView(false);
    put(c, 1, 0, contents(3, 4096));
    assertThat(get(c, 1, 0)).isEqualTo(contents(3, 4096));
    c.close();
    assertThat(shared.offHeapBytes()).isZero();
  }

  /**
   * A cache larger than the JVM's direct memory limit keeps working with what it could take: a
   * child JVM limited to 16 MiB of direct memory puts 80 MiB through a 64 MiB cache.
   */
  @Test
  void aCacheLargerThanTheDirectMemoryLimit_cachesWhatFits() throws Exception {
    String javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(javaBin, "-XX:MaxDirectMemorySize=16m", "-Xmx64m",
        "-cp", System.getProperty("java.class.path"), DirectMemoryLimitWorker.class.getName())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("OK").contains("no direct memory for another region");
    long memory = Long.parseLong(out.replaceAll("(?s).*MEMORY (\\d+).*", "$1"));
    long hits = Long.parseLong(out.replaceAll("(?s).*HITS (\\d+).*", "$1"));
    assertThat(memory).as(out).isPositive().isLessThanOrEqualTo(16L << 20);
    assertThat(hits).as(out).isPositive();
  }

  @Test
  void concurrentReadersAndWriters_neverSeeATornOrAnotherAddressesBlock() throws Exception {
    // Small regions taken back all the time, while readers copy out of them.
    BlockCache cache = new BlockCache(128L << 10);
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      long base = Seeds.seed("BlockCacheTest.concurrentReadersAndWriters_neverSeeATornOrAnotherAddressesBlock");
      for (int t = 0; t < threads; t++) {
        long seed = base + t;
        done.add(pool.submit(() -> {
          Random rnd = new Random(seed);
          BlockBuffer buf = new BlockBuffer();
          long hits = 0;
          for (int op = 0; op < 200_000; op++) {
            long file = 1 + rnd.nextInt(4);
            long offset = rnd.nextInt(300);
            // A block's size and every byte encode its address, so a wrong or torn hit is visible.
            int size = (int) (64 + file * 1000 + offset);
            if (rnd.nextInt(3) == 0) {
              put(cache, file, offset, contents(addr(file, offset), size));
            } else if (rnd.nextInt(1000) == 0) {
              cache.evictFile(file);
            } else {
              int len = cache.get(file, offset, buf);
              if (len >= 0) {
                hits++;
                if (len != size || !Arrays.equals(buf.bytes(), 0, len, contents(addr(file, offset), size), 0, size)) {
                  throw new AssertionError("seed " + seed + ": file " + file + " offset " + offset + ": wrong block");
                }
              }
            }
          }
          if (hits == 0) {
            throw new AssertionError("seed " + seed + ": no hit at all");
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    long sum = 0;
    for (long f = 1; f <= 4; f++) {
      sum += cache.cachedBytes(f);
    }
    assertThat(cache.usedBytes()).isEqualTo(sum);
  }

  @Test
  void viewsOfOneSharedCache_keepTheirBlocksApart_andShareItsMemory() {
    SharedBlockCache shared = new SharedBlockCache(512L << 10);
    BlockCache a = shared.newView(false);
    BlockCache b = shared.newView(false);
    // The same file numbers and offsets in two tables: each view sees only its own blocks.
    for (int i = 0; i < 40; i++) {
      put(a, 1, 4096L * i, contents(i, 1000 + i));
      put(b, 1, 4096L * i, contents(-i, 2000 + i));
    }
    for (int i = 0; i < 40; i++) {
      assertThat(get(a, 1, 4096L * i)).isEqualTo(contents(i, 1000 + i));
      assertThat(get(b, 1, 4096L * i)).isEqualTo(contents(-i, 2000 + i));
    }
    assertThat(a.usedBytes() + b.usedBytes()).isEqualTo(shared.usedBytes());
    assertThat(a.cachedBytes(1)).isEqualTo(a.usedBytes());
    assertThat(a.size()).isEqualTo(40);

    // Dropping a file of one view leaves the other's file of the same number.
    a.evictFiles(1, 7);
    assertThat(get(a, 1, 0)).isNull();
    assertThat(a.usedBytes()).isZero();
    assertThat(get(b, 1, 0)).isNotNull();

    // One view filling the memory evicts the other's blocks not read again: the capacity is shared.
    for (int i = 0; i < 400; i++) {
      put(a, 2, 4096L * i, contents(i, 4096));
    }
    assertThat(shared.usedBytes()).isLessThanOrEqualTo(512L << 10);
    assertThat(b.usedBytes()).isLessThan(40 * 2000L);
    assertThat(a.usedBytes() + b.usedBytes()).isEqualTo(shared.usedBytes());

    // A closing table's view leaves nothing behind.
    a.evictAll();
    assertThat(a.usedBytes()).isZero();
    assertThat(a.size()).isZero();
    assertThat(shared.usedBytes()).isEqualTo(b.usedBytes());
  }

  private static void assertSameRow(Lookup got, Lookup expected, long seed, String name) {
    assertThat(got).as("seed %d: row %s", seed, name).isNotNull();
    assertThat(got.seqNum()).as("seed %d: row %s", seed, name).isEqualTo(expected.seqNum());
    assertThat(got.kind()).as("seed %d: row %s", seed, name).isEqualTo(expected.kind());
    assertThat(got.version()).as("seed %d: row %s", seed, name).isEqualTo(expected.version());
    assertThat(got.expiresAt()).as("seed %d: row %s", seed, name).isEqualTo(expected.expiresAt());
    assertThat(got.value()).as("seed %d: row %s", seed, name).isEqualTo(expected.value())
        .isNotSameAs(expected.value());
  }

  @Test
  void rowsAndBlocks_matchAModel_evenWithCollidingKeyHashes() {
    long seed = Seeds.seed("BlockCacheTest.rowsAndBlocks_matchAModel_evenWithCollidingKeyHashes");
    Random rnd = new Random(seed);
    long capacity = 128L << 10;
    BlockCache cache = new BlockCache(capacity, true);
    assertThat(cache.cachesRows()).isTrue();
    Map<Long, byte[]> blocks = new HashMap<>();
    Map<String, Lookup> rows = new HashMap<>(); // "file/key" -> row
    for (int op = 0; op < 100_000; op++) {
      long file = 1 + rnd.nextInt(4);
      int k = rnd.nextInt(300);
      byte[] key = ("k" + k).getBytes(StandardCharsets.UTF_8);
      // Few hashes for many keys, and the same numbers as block offsets: every row shares its
      // hash with other rows and with a block, so only the key (and its kind) tells them apart.
      long keyHash = k % 7;
      String name = file + "/k" + k;
      int r = rnd.nextInt(100);
      if (r < 25) {
        Lookup row = new Lookup(op, rnd.nextBoolean() ? ValueKind.PUT : ValueKind.DELETE,
            contents(op, rnd.nextInt(200)), op + 1, rnd.nextBoolean() ? 0 : op * 1000L);
        cache.putRow(file, keyHash, key, row);
        rows.put(name, row);
        assertSameRow(cache.getRow(file, keyHash, key), row, seed, name + " just put");
      } else if (r < 40) {
        byte[] b = contents(op, 256 + rnd.nextInt(2048));
        put(cache, file, keyHash, b);
        blocks.put(addr(file, keyHash), b);
      } else if (r < 70) {
        Lookup got = cache.getRow(file, keyHash, key.clone());
        if (got != null) {
          assertSameRow(got, rows.get(name), seed, name);
        }
      } else if (r < 99) {
        byte[] got = get(cache, file, keyHash);
        if (got != null) {
          assertThat(got).as("seed %d: block %d/%d", seed, file, keyHash).isEqualTo(blocks.get(addr(file, keyHash)));
        }
      } else {
        cache.evictFile(file);
        blocks.keySet().removeIf(a -> a >>> 32 == file);
        rows.keySet().removeIf(n -> n.startsWith(file + "/"));
        assertThat(cache.cachedBytes(file)).as("seed %d", seed).isZero();
      }
      if (op % 5_000 == 0) {
        assertThat(cache.usedBytes()).as("seed %d: accounting", seed)
            .isEqualTo(cache.cachedBytes(1, 2, 3, 4));
        assertThat(cache.usedBytes()).as("seed %d: bound", seed).isLessThanOrEqualTo(capacity);
      }
    }
    long held = 0;
    for (Map.Entry<String, Lookup> e : rows.entrySet()) {
      String[] parts = e.getKey().split("/");
      int k = Integer.parseInt(parts[1].substring(1));
      Lookup got = cache.getRow(Long.parseLong(parts[0]), k % 7, parts[1].getBytes(StandardCharsets.UTF_8));
      if (got != null) {
        assertSameRow(got, e.getValue(), seed, e.getKey());
        held++;
      }
    }
    for (Map.Entry<Long, byte[]> e : blocks.entrySet()) {
      if (get(cache, e.getKey() >>> 32, e.getKey() & 0xFFFFFFFFL) != null) {
        held++;
      }
    }
    assertThat(held).as("seed %d: rows and blocks held", seed).isEqualTo(cache.size());
    assertThat(cache.rowHits()).isPositive();
    assertThat(cache.rowMisses()).isPositive();
  }

  /** Rows of one-byte values are charged their heap overhead, so they cannot fill the heap. */
  @Test
  void smallRows_areChargedTheirOverhead() {
    long capacity = 1L << 20;
    BlockCache cache = new BlockCache(capacity, true);
    for (int i = 0; i < 100_000; i++) {
      byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
      cache.putRow(1, i, key, new Lookup(i, ValueKind.PUT, new byte[] {(byte) i}, i, 0));
    }
    assertThat(cache.size()).isPositive().isLessThanOrEqualTo(capacity / SharedBlockCache.ROW_OVERHEAD);
    assertThat(cache.usedBytes()).isLessThanOrEqualTo(capacity);
    Lookup last = cache.getRow(1, 99_999, "k99999".getBytes(StandardCharsets.UTF_8));
    assertThat(last).isNotNull();
    assertThat(last.value()).containsExactly((byte) 99_999);
  }

  @Test
  void aViewWithoutRows_orACacheOfNoMemory_keepsNoRows() {
    assertThat(new BlockCache(1L << 20).cachesRows()).isFalse();
    assertThat(new BlockCache(0, true).cachesRows()).isFalse();
    assertThat(new SharedBlockCache(1L << 20).newView(true).cachesRows()).isTrue();
  }
}
