package org.kvstore.cluster.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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

  private static ShardEntry put(String table, String key) {
    return ShardEntry.of(table, List.of(Mutation.put(key.getBytes(StandardCharsets.UTF_8), new byte[] {1})));
  }

  @Test
  void proposalsWhileABatchIsInFlight_goAsOneEntryInTheirOrder() throws Exception {
    List<ShardEntry> sent = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch firstSent = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ProposalBatcher b = new ProposalBatcher(e -> {
      sent.add(e);
      firstSent.countDown();
      try {
        release.await();
      } catch (InterruptedException ie) {
        throw new IllegalStateException(ie);
      }
      return (long) sent.size();
    }, pool, 10_000);
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
    ProposalBatcher failing = new ProposalBatcher(e -> {
      throw OutcomeUnknownException.withMessage("outcome unknown: the leader stepped down", null);
    }, pool, 10_000);
    assertThatThrownBy(() -> failing.propose(put("t", "a"))).isInstanceOf(OutcomeUnknownException.class);
    assertThatThrownBy(() -> failing.propose(put("t", "b"))).isInstanceOf(OutcomeUnknownException.class);

    ProposalBatcher slow = new ProposalBatcher(e -> {
      try {
        Thread.sleep(5_000);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
      return 1L;
    }, pool, 200);
    assertThatThrownBy(() -> slow.propose(put("t", "a"))).isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("no answer within 200 ms");
  }
}
