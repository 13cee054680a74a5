package org.kvstore.lsm.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
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

/** The CLOCK block cache against a map model: exact hits, byte accounting, eviction, file drops. */
class BlockCacheTest {
  private static Block block(int bytes) {
    byte[] b = new byte[bytes];
    b[bytes - 4] = 1; // one restart point at offset 0
    return new Block(b);
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
    Map<Long, Block> model = new HashMap<>(); // every block ever put and not dropped with its file
    for (int op = 0; op < 200_000; op++) {
      long file = 1 + rnd.nextInt(8);
      long offset = 4096L * rnd.nextInt(200);
      int r = rnd.nextInt(100);
      if (r < 45) {
        Block b = block(512 + rnd.nextInt(4096));
        cache.put(file, offset, b);
        model.put(addr(file, offset), b);
        assertThat(cache.get(file, offset)).as("seed %d: just put", seed).isSameAs(b);
      } else if (r < 99) {
        Block got = cache.get(file, offset);
        if (got != null) {
          assertThat(got).as("seed %d: file %d offset %d", seed, file, offset)
              .isSameAs(model.get(addr(file, offset)));
        }
      } else {
        cache.evictFile(file);
        model.keySet().removeIf(k -> k >>> 32 == file);
        assertThat(cache.cachedBytes(file)).as("seed %d", seed).isZero();
      }
      if (op % 10_000 == 0) {
        long sum = 0;
        for (long f = 1; f <= 8; f++) {
          sum += cache.cachedBytes(f);
        }
        assertThat(cache.usedBytes()).as("seed %d: accounting", seed).isEqualTo(sum);
        // Each of 16 shards may hold one block over its share while it holds a single block.
        assertThat(cache.usedBytes()).as("seed %d: bound", seed).isLessThanOrEqualTo(capacity + 16 * 4700L);
      }
    }
    // Everything still cached is found, and is what was put last.
    int found = 0;
    for (Map.Entry<Long, Block> e : model.entrySet()) {
      Block got = cache.get(e.getKey() >>> 32, e.getKey() & 0xFFFFFFFFL);
      if (got != null) {
        assertThat(got).as("seed %d", seed).isSameAs(e.getValue());
        found++;
      }
    }
    assertThat((long) found).as("seed %d", seed).isEqualTo(cache.size());
  }

  @Test
  void aWorkingSetReadBetweenColdInsertsStaysCached() {
    BlockCache cache = new BlockCache(1L << 20); // about 250 blocks of 4 KiB
    int hot = 64;
    for (int i = 0; i < hot; i++) {
      cache.put(1, 4096L * i, block(4096));
    }
    for (int round = 0; round < 2_000; round++) {
      for (int i = 0; i < hot; i++) {
        assertThat(cache.get(1, 4096L * i)).as("hot block %d in round %d", i, round).isNotNull();
      }
      cache.put(2, 4096L * round, block(4096)); // a cold block, never read again
    }
    assertThat(cache.usedBytes()).isLessThanOrEqualTo((1L << 20) + 16 * 4160L);
    assertThat(cache.cachedBytes(2)).isPositive();
  }

  @Test
  void zeroCapacity_holdsNothing() {
    BlockCache cache = new BlockCache(0);
    cache.put(1, 0, block(100));
    assertThat(cache.get(1, 0)).isNull();
    assertThat(cache.admit(1, 0)).isFalse();
    assertThat(cache.usedBytes()).isZero();
  }

  @Test
  void concurrentReadersAndWriters_neverSeeAnotherAddressesBlock() throws Exception {
    BlockCache cache = new BlockCache(128L << 10);
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      long base = Seeds.seed("BlockCacheTest.concurrentReadersAndWriters_neverSeeAnotherAddressesBlock");
      for (int t = 0; t < threads; t++) {
        long seed = base + t;
        done.add(pool.submit(() -> {
          Random rnd = new Random(seed);
          for (int op = 0; op < 100_000; op++) {
            long file = 1 + rnd.nextInt(4);
            long offset = rnd.nextInt(300);
            if (rnd.nextInt(3) == 0) {
              // A block's size encodes its address, so a wrong hit is visible.
              cache.put(file, offset, block((int) (64 + file * 1000 + offset)));
            } else if (rnd.nextInt(1000) == 0) {
              cache.evictFile(file);
            } else {
              Block b = cache.get(file, offset);
              if (b != null && b.memoryBytes() != 64 + file * 1000 + offset + 64) {
                throw new AssertionError("file " + file + " offset " + offset + ": wrong block");
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
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
      a.put(1, 4096L * i, block(1000 + i));
      b.put(1, 4096L * i, block(2000 + i));
    }
    for (int i = 0; i < 40; i++) {
      assertThat(a.get(1, 4096L * i).memoryBytes()).isEqualTo(1000 + i + 64);
      assertThat(b.get(1, 4096L * i).memoryBytes()).isEqualTo(2000 + i + 64);
    }
    assertThat(a.usedBytes() + b.usedBytes()).isEqualTo(shared.usedBytes());
    assertThat(a.cachedBytes(1)).isEqualTo(a.usedBytes());
    assertThat(a.size()).isEqualTo(40);

    // Dropping a file of one view leaves the other's file of the same number.
    a.evictFiles(1, 7);
    assertThat(a.get(1, 0)).isNull();
    assertThat(a.usedBytes()).isZero();
    assertThat(b.get(1, 0)).isNotNull();

    // One view filling the memory evicts the other's unread blocks: the capacity is shared.
    for (int i = 0; i < 400; i++) {
      a.put(2, 4096L * i, block(4096));
    }
    assertThat(shared.usedBytes()).isLessThanOrEqualTo((512L << 10) + 16 * 4160L);
    assertThat(b.usedBytes()).isLessThan(40 * 2000L);
    assertThat(a.usedBytes() + b.usedBytes()).isEqualTo(shared.usedBytes());

    // A closing table's view leaves nothing behind.
    a.evictAll();
    assertThat(a.usedBytes()).isZero();
    assertThat(a.size()).isZero();
    assertThat(shared.usedBytes()).isEqualTo(b.usedBytes());
  }

  @Test
  void rowsAndBlocks_matchAModel_evenWithCollidingKeyHashes() {
    long seed = Seeds.seed("BlockCacheTest.rowsAndBlocks_matchAModel_evenWithCollidingKeyHashes");
    Random rnd = new Random(seed);
    long capacity = 128L << 10;
    BlockCache cache = new BlockCache(capacity, true);
    assertThat(cache.cachesRows()).isTrue();
    Map<Long, Block> blocks = new HashMap<>();
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
            new byte[rnd.nextInt(200)], op, 0);
        cache.putRow(file, keyHash, key, row);
        rows.put(name, row);
        assertThat(cache.getRow(file, keyHash, key)).as("seed %d: just put", seed).isSameAs(row);
      } else if (r < 40) {
        Block b = block(256 + rnd.nextInt(2048));
        cache.put(file, keyHash, b);
        blocks.put(addr(file, keyHash), b);
      } else if (r < 70) {
        Lookup got = cache.getRow(file, keyHash, key.clone());
        if (got != null) {
          assertThat(got).as("seed %d: row %s", seed, name).isSameAs(rows.get(name));
        }
      } else if (r < 99) {
        Block got = cache.get(file, keyHash);
        if (got != null) {
          assertThat(got).as("seed %d: block %d/%d", seed, file, keyHash)
              .isSameAs(blocks.get(addr(file, keyHash)));
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
        assertThat(cache.usedBytes()).as("seed %d: bound", seed).isLessThanOrEqualTo(capacity + 16 * 2400L);
      }
    }
    long held = 0;
    for (Map.Entry<String, Lookup> e : rows.entrySet()) {
      String[] parts = e.getKey().split("/");
      int k = Integer.parseInt(parts[1].substring(1));
      Lookup got = cache.getRow(Long.parseLong(parts[0]), k % 7, parts[1].getBytes(StandardCharsets.UTF_8));
      if (got != null) {
        assertThat(got).as("seed %d", seed).isSameAs(e.getValue());
        held++;
      }
    }
    for (Map.Entry<Long, Block> e : blocks.entrySet()) {
      if (cache.get(e.getKey() >>> 32, e.getKey() & 0xFFFFFFFFL) != null) {
        held++;
      }
    }
    assertThat(held).as("seed %d: rows and blocks held", seed).isEqualTo(cache.size());
    assertThat(cache.rowHits()).isPositive();
    assertThat(cache.rowMisses()).isPositive();
  }

  @Test
  void aViewWithoutRows_orACacheOfNoMemory_keepsNoRows() {
    assertThat(new BlockCache(1L << 20).cachesRows()).isFalse();
    assertThat(new BlockCache(0, true).cachesRows()).isFalse();
    assertThat(new SharedBlockCache(1L << 20).newView(true).cachesRows()).isTrue();
  }
}
