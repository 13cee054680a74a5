package org.kvstore.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvstore.testkit.Seeds;

class KeyIndexTest {

  /** A key with a chosen hash code, so that tests can make keys collide. */
  private record Key(int id, int hash) {
    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.id == id;
    }
  }

  @Test
  void putIfAbsent_thenGet_returnsTheStoredKey_andAnEqualKeyDoesNotReplaceIt() {
    KeyIndex<Key> index = new KeyIndex<>();
    Key first = new Key(1, 1);
    assertThat(index.putIfAbsent(first)).isNull();
    assertThat(index.putIfAbsent(new Key(1, 1))).isSameAs(first);
    assertThat(index.get(new Key(1, 1))).isSameAs(first);
    assertThat(index.get(new Key(2, 2))).isNull();
    assertThat(index.size()).isEqualTo(1);
  }

  @Test
  void manyKeys_growTheTable_andAllStayFound() {
    KeyIndex<Key> index = new KeyIndex<>();
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      assertThat(index.putIfAbsent(new Key(i, i * 31))).isNull();
    }
    assertThat(index.size()).isEqualTo(n);
    assertThat(index.capacity()).isGreaterThanOrEqualTo(2 * n).isLessThanOrEqualTo(4 * n);
    for (int i = 0; i < n; i++) {
      assertThat(index.get(new Key(i, i * 31))).as("key %d", i).isNotNull().extracting(Key::id).isEqualTo(i);
    }
    assertThat(index.get(new Key(n, n * 31))).isNull();
  }

  /** Keys with one hash code fill consecutive slots, across the table's end and through growth. */
  @Test
  void collidingKeys_areFoundByLinearProbing() {
    KeyIndex<Key> index = new KeyIndex<>();
    for (int i = 0; i < 1_000; i++) {
      index.putIfAbsent(new Key(i, 42));
      index.putIfAbsent(new Key(-i - 1, -1)); // another run, near the top of the table after spreading
    }
    for (int i = 0; i < 1_000; i++) {
      assertThat(index.get(new Key(i, 42))).as("key %d", i).isNotNull();
      assertThat(index.get(new Key(-i - 1, -1))).as("key %d", -i - 1).isNotNull();
    }
    assertThat(index.get(new Key(5_000, 42))).isNull();
    assertThat(index.size()).isEqualTo(2_000);
  }

  /**
   * A key put before a lookup starts is found, while the table grows under the readers: the writer
   * publishes how many keys it has put, and readers look up keys below that count.
   */
  @Test
  @Timeout(60)
  void keysPutBeforeALookup_areFound_whileTheTableGrows() throws Exception {
    KeyIndex<Key> index = new KeyIndex<>();
    int n = 300_000;
    AtomicInteger published = new AtomicInteger();
    AtomicInteger misses = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    try {
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < n; i++) {
          index.putIfAbsent(new Key(i, i));
          published.set(i + 1);
        }
        return null;
      }));
      long base = Seeds.seed("KeyIndexTest.keysPutBeforeALookup_areFound_whileTheTableGrows");
      for (int r = 0; r < 2; r++) {
        long seed = base + r;
        futures.add(pool.submit(() -> {
          start.await();
          java.util.Random rnd = new java.util.Random(seed);
          int upTo;
          while ((upTo = published.get()) < n) {
            if (upTo > 0) {
              int k = rnd.nextInt(upTo);
              if (index.get(new Key(k, k)) == null) {
                misses.incrementAndGet();
              }
            }
            // a key not put yet may or may not be seen; one never put is not
            if (index.get(new Key(-1, 7)) != null) {
              misses.incrementAndGet();
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(50, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(misses.get()).as("keys missed (or found when never put)").isZero();
    assertThat(index.size()).isEqualTo(n);
  }
}
