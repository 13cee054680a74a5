package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The helper pool's permits bound the runs in flight and come back however a run ends. */
class ReadOffloadTest {

  @Test
  void permits_boundTheRunsInFlight_andComeBackWhenARunEnds() throws Exception {
    try (ReadOffload reads = new ReadOffload(1)) {
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch ran = new CountDownLatch(ReadOffload.RUNS_PER_THREAD);
      int taken = 0;
      while (reads.tryAcquire()) {
        taken++;
        reads.submit(() -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          ran.countDown();
        });
      }
      assertThat(taken).isEqualTo(8);
      assertThat(reads.inFlight()).isEqualTo(taken);
      release.countDown();
      assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < 100 && reads.inFlight() > 0; i++) {
        Thread.sleep(10);
      }
      assertThat(reads.inFlight()).isZero();
      assertThat(reads.runs()).isEqualTo(taken);
      assertThat(reads.tryAcquire()).isTrue();
      reads.release();
    }
  }

  @Test
  void aFailingRun_givesItsPermitBack() throws Exception {
    try (ReadOffload reads = new ReadOffload(1)) {
      assertThat(reads.tryAcquire()).isTrue();
      reads.submit(() -> {
        throw new IllegalStateException("boom");
      });
      for (int i = 0; i < 100 && reads.inFlight() > 0; i++) {
        Thread.sleep(10);
      }
      assertThat(reads.inFlight()).isZero();
    }
  }

  @Test
  void afterClose_submitIsRejected_andThePermitComesBack() {
    ReadOffload reads = new ReadOffload(1);
    reads.close();
    assertThat(reads.tryAcquire()).isTrue();
    assertThatThrownBy(() -> reads.submit(() -> {})).isInstanceOf(RejectedExecutionException.class);
    assertThat(reads.inFlight()).isZero();
    assertThat(reads.runs()).isZero();
  }

  @Test
  void needsAThread() {
    assertThatThrownBy(() -> new ReadOffload(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
