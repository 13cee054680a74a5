package org.kvstore.cluster.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kvstore.OutcomeUnknownException;
import org.kvstore.cluster.codec.ShardEntry;
import org.kvstore.spi.Mutation;

/** Group commit of a shard's proposals: merging, one batch in flight, failures shared. */
class ProposalBatcherTest {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** A send that records each entry, tells when the first came, and answers once released. */
  private static final class GatedSend {
    final List<ShardEntry> sent = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch firstSent = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    long send(ShardEntry e) {
      sent.add(e);
      firstSent.countDown();
      try {
        release.await();
      } catch (InterruptedException ie) {
        throw new IllegalStateException(ie);
      }
      return sent.size();
    }
  }

  /** A batcher whose every batch fails with an unknown outcome. */
  private ProposalBatcher failing() {
    return new ProposalBatcher(e -> {
      throw OutcomeUnknownException.withMessage("outcome unknown: the leader stepped down", null);
    }, pool, 10_000, Duration.ZERO);
  }

  /** A batcher whose batches take 5 s, with a timeout of 200 ms. */
  private ProposalBatcher slow() {
    return new ProposalBatcher(e -> {
      try {
        Thread.sleep(5_000);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
      return 1L;
    }, pool, 200, Duration.ZERO);
  }

  private static ShardEntry put(String table, String key) {
    return ShardEntry.of(table, List.of(Mutation.put(key.getBytes(StandardCharsets.UTF_8), new byte[] {1})));
  }

  @Test
  void proposalsWhileABatchIsInFlight_goAsOneEntryInTheirOrder() throws Exception {
    GatedSend gate = new GatedSend();
    List<ShardEntry> sent = gate.sent;
    CountDownLatch firstSent = gate.firstSent;
    CountDownLatch release = gate.release;
    ProposalBatcher b = new ProposalBatcher(gate::send, pool, 10_000, Duration.ZERO);
    Future<Long> first = pool.submit(() -> b.propose(put("t", "a")));
    assertThat(firstSent.await(10, TimeUnit.SECONDS)).isTrue();
    List<Future<Long>> waiting = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String key = "k" + i;
      String table = i % 2 == 0 ? "t" : "u";
      waiting.add(pool.submit(() -> b.propose(put(table, key))));
      Thread.sleep(20); // they queue in this order behind the batch in flight
    }
    release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    for (Future<Long> f : waiting) {
      assertThat(f.get(10, TimeUnit.SECONDS)).as("every waiting write is in the second entry").isEqualTo(2);
    }
    assertThat(sent).hasSize(2);
    ShardEntry merged = sent.get(1);
    assertThat(merged.tables()).extracting(t -> t.table()).containsExactly("t", "u");
    assertThat(merged.tables().get(0).mutations()).extracting(m -> new String(m.key(), StandardCharsets.UTF_8))
        .containsExactly("k0", "k2", "k4");
    assertThat(merged.tables().get(1).mutations()).extracting(m -> new String(m.key(), StandardCharsets.UTF_8))
        .containsExactly("k1", "k3");
  }

  @Test
  void aFailedBatch_failsEveryWriteInIt_andTheNextBatchStillRuns() {
    ProposalBatcher failing = failing();
    assertThatThrownBy(() -> failing.propose(put("t", "a"))).isInstanceOf(OutcomeUnknownException.class);
    assertThatThrownBy(() -> failing.propose(put("t", "b"))).isInstanceOf(OutcomeUnknownException.class);

    ProposalBatcher slow = slow();
    assertThatThrownBy(() -> slow.propose(put("t", "a"))).isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("no answer within 200 ms");
  }

  @Test
  void proposeAsync_returnsAtOnce_mergesWithWaitingWriters_andFailsAsProposeThrows() throws Exception {
    GatedSend gate2 = new GatedSend();
    List<ShardEntry> sent = gate2.sent;
    CountDownLatch firstSent = gate2.firstSent;
    CountDownLatch release = gate2.release;
    ProposalBatcher b = new ProposalBatcher(gate2::send, pool, 10_000, Duration.ZERO);
    CompletableFuture<Long> first = b.proposeAsync(put("t", "a"));
    assertThat(firstSent.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Long> second = b.proposeAsync(put("t", "b"));
    Future<Long> blocking = pool.submit(() -> b.propose(put("t", "c")));
    Thread.sleep(50);
    assertThat(first).as("the first batch is still in flight").isNotDone();
    assertThat(second).isNotDone();
    release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(second.get(10, TimeUnit.SECONDS)).as("merged with the blocking writer's entry").isEqualTo(2);
    assertThat(blocking.get(10, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).tables().get(0).mutations()).extracting(m -> new String(m.key(), StandardCharsets.UTF_8))
        .containsExactly("b", "c");

    ProposalBatcher failing = failing();
    assertThatThrownBy(() -> failing.proposeAsync(put("t", "a")).get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(OutcomeUnknownException.class);
    ProposalBatcher slow = slow();
    assertThatThrownBy(() -> slow.proposeAsync(put("t", "a")).get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(OutcomeUnknownException.class).hasMessageContaining("no answer within 200 ms");
  }

  @Test
  void keyLatches_tryLock_takesAllOrNone_andAnotherThreadMayGiveThemBack() throws Exception {
    KeyLatches latches = new KeyLatches();
    int[] ab = KeyLatches.stripesOf("t", List.of("a".getBytes(StandardCharsets.UTF_8), "b".getBytes(StandardCharsets.UTF_8)));
    int[] b = KeyLatches.stripesOf("t", List.of("b".getBytes(StandardCharsets.UTF_8)));
    int[] a = KeyLatches.stripesOf("t", List.of("a".getBytes(StandardCharsets.UTF_8)));
    assertThat(latches.tryLock(b)).isTrue();
    assertThat(latches.tryLock(ab)).as("b is held").isFalse();
    assertThat(latches.tryLock(a)).as("a was given back when ab failed").isTrue();
    pool.submit(() -> {
      latches.unlock(b);
      latches.unlock(a);
    }).get(10, TimeUnit.SECONDS);
    assertThat(latches.tryLock(ab)).as("released on another thread").isTrue();
    latches.unlock(ab);
  }
  /**
   * A writer answered in a batch when nothing else was queued, and back with its next write before
   * the batcher chose the next batch (here: from the answer itself), is sent at once, not held for
   * the batch wait until the rest of its batch comes back.
   */
  @Test
  void aWriterBackBeforeTheNextBatch_withNothingQueuedAtTheAnswer_isNotHeld() throws Exception {
    List<CountDownLatch> gates = List.of(new CountDownLatch(1), new CountDownLatch(1));
    AtomicInteger calls = new AtomicInteger();
    ProposalBatcher b = new ProposalBatcher(entry -> {
      int n = calls.getAndIncrement();
      if (n < gates.size()) {
        try {
          gates.get(n).await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return n + 1L;
    }, pool, 20_000, Duration.ofSeconds(10));
    CompletableFuture<Long> a = b.proposeAsync(put("t", "a"));
    CompletableFuture<Long> bb = b.proposeAsync(put("t", "b"));
    CompletableFuture<Long> c = b.proposeAsync(put("t", "c"));
    gates.get(0).countDown();
    assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    CompletableFuture<Long> d = b.proposeAsync(put("t", "d")); // the third writer back: b, c, d go
    CompletableFuture<CompletableFuture<Long>> again = new CompletableFuture<>();
    d.thenRun(() -> again.complete(b.proposeAsync(put("t", "e"))));
    long t0 = System.nanoTime();
    gates.get(1).countDown();
    assertThat(again.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS)).isEqualTo(3);
    assertThat(bb.get(1, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(c.get(1, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).as("e was not held for the batch wait")
        .isLessThan(5_000);
  }

  @Test
  void theNextBatch_waitsForTheWritersOfTheLast_atMostTheBatchWait_andALoneWriterNever() throws Exception {
    GatedSend gate3 = new GatedSend();
    List<ShardEntry> sent = gate3.sent;
    CountDownLatch firstSent = gate3.firstSent;
    CountDownLatch release = gate3.release;
    ProposalBatcher b = new ProposalBatcher(gate3::send, pool, 20_000, Duration.ofSeconds(10));
    CompletableFuture<Long> a = b.proposeAsync(put("t", "a"));
    assertThat(firstSent.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Long> bb = b.proposeAsync(put("t", "b"));
    CompletableFuture<Long> c = b.proposeAsync(put("t", "c"));
    release.countDown();
    assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    // One writer answered and two queued: the next batch waits for a third.
    Thread.sleep(300);
    assertThat(sent).as("still waiting for the answered writer to come back").hasSize(1);
    CompletableFuture<Long> d = b.proposeAsync(put("t", "d"));
    assertThat(d.get(10, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(bb.get(1, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(c.get(1, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(sent.get(1).tables().get(0).mutations()).extracting(m -> new String(m.key(), StandardCharsets.UTF_8))
        .containsExactly("b", "c", "d");

    // A lone writer finds nothing queued when its batch is answered: no wait.
    long t0 = System.nanoTime();
    for (int i = 0; i < 5; i++) {
      b.propose(put("t", "lone" + i));
    }
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).as("five lone writes").isLessThan(5_000);
    assertThat(sent).hasSize(7);

    // Writers that do not come back cost at most the batch wait.
    GatedSend gate4 = new GatedSend();
    List<ShardEntry> sent2 = gate4.sent;
    CountDownLatch first2 = gate4.firstSent;
    CountDownLatch release2 = gate4.release;
    ProposalBatcher capped = new ProposalBatcher(gate4::send, pool, 20_000, Duration.ofMillis(300));
    capped.proposeAsync(put("t", "a"));
    assertThat(first2.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Long> x = capped.proposeAsync(put("t", "x"));
    long t1 = System.nanoTime();
    release2.countDown();
    assertThat(x.get(10, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1)).isBetween(250L, 5_000L);
  }
}
