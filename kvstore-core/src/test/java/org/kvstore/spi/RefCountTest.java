package org.kvstore.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RefCountTest {
  @Test
  void tryAcquire_live_addsAReference() {
    RefCount r = new RefCount(1);
    assertThat(r.tryAcquire()).isTrue();
    assertThat(r.count()).isEqualTo(2);
  }

  @Test
  void release_lastReference_returnsTrueOnce() {
    RefCount r = new RefCount(1);
    r.acquire();
    assertThat(r.release()).isFalse();
    assertThat(r.release()).isTrue();
    assertThat(r.count()).isZero();
  }

  @Test
  void tryAcquire_afterReachingZero_refuses() {
    RefCount r = new RefCount(1);
    r.release();
    assertThat(r.tryAcquire()).isFalse();
    assertThat(r.count()).isZero();
    assertThat(new RefCount(0).tryAcquire()).isFalse();
  }

  @Test
  void tryReleaseLast_otherHolders_refusesAndKeepsTheReference() {
    RefCount r = new RefCount(1);
    r.acquire();
    assertThat(r.tryReleaseLast()).isFalse();
    assertThat(r.count()).isEqualTo(2);
    r.release();
    assertThat(r.tryReleaseLast()).isTrue();
    assertThat(r.tryAcquire()).isFalse();
  }

  @Test
  void set_deadCount_revivesIt() {
    RefCount r = new RefCount(0);
    r.set(2);
    assertThat(r.tryAcquire()).isTrue();
    assertThat(r.count()).isEqualTo(3);
  }

  @Test
  void constructorAndSet_negative_throw() {
    assertThatThrownBy(() -> new RefCount(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RefCount(1).set(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Readers acquire and release while the owner drops its reference: exactly one release is the
   * last, and no acquire succeeds after it (a dead object is never revived by a reader).
   */
  @Test
  void tryAcquire_racingTheLastRelease_neverRevives() throws Exception {
    for (int round = 0; round < 200; round++) {
      RefCount r = new RefCount(1);
      AtomicInteger lastReleases = new AtomicInteger();
      AtomicInteger acquiredAfterDeath = new AtomicInteger();
      int threads = 4;
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> readers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread th = new Thread(() -> {
          await(start);
          boolean seenDead = false;
          for (int i = 0; i < 2_000; i++) {
            if (r.tryAcquire()) {
              if (seenDead) {
                acquiredAfterDeath.incrementAndGet();
              }
              if (r.release()) {
                lastReleases.incrementAndGet();
              }
            } else {
              seenDead = true;
            }
          }
        });
        th.start();
        readers.add(th);
      }
      start.countDown();
      if (r.release()) {
        lastReleases.incrementAndGet();
      }
      for (Thread th : readers) {
        th.join();
      }
      assertThat(lastReleases.get()).as("round %d", round).isEqualTo(1);
      assertThat(acquiredAfterDeath.get()).isZero();
      assertThat(r.count()).isZero();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
