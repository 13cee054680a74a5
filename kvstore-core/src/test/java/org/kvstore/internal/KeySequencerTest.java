package org.kvstore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.lang.management.LockInfo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.kvstore.spi.Mutation;
import org.kvstore.testkit.Blocked;

/** Turns taken and completed range by range of a writer's stripes. */
class KeySequencerTest {
  private final KeySequencer seq = new KeySequencer();

  private long[] issueLocked(int[] stripes) {
    seq.lock(stripes);
    try {
      return seq.issue(stripes);
    } finally {
      seq.unlock(stripes);
    }
  }

  @Test
  void aLaterWriter_waitsPerRange_onlyUntilTheEarlierOneCompletedThatRange() throws Exception {
    int[] stripes = {1, 200, 900}; // chunks 0, 1 and 7
    assertThat(KeySequencer.chunkOf(1)).isNotEqualTo(KeySequencer.chunkOf(200));
    long[] first = issueLocked(stripes);
    long[] second = issueLocked(stripes);

    seq.complete(stripes, first, 0, 1);
    // The first range's turn has come for the second writer although the first is not done.
    CompletableFuture<Void> range0 = CompletableFuture.runAsync(() -> seq.awaitTurn(stripes, second, 0, 1));
    range0.get(10, TimeUnit.SECONDS);

    FutureTask<Void> rest = new FutureTask<>(() -> seq.awaitTurn(stripes, second, 1, 3), null);
    Thread restThread = new Thread(rest, "second-writer-rest");
    restThread.start();
    Predicate<LockInfo> stripe = Blocked.ofClassNamed(KeySequencer.class.getName() + "$Stripe");
    LockInfo stripe200 = Blocked.awaitBlockedOn(restThread, stripe, "the second writer waits for stripe 200");
    assertThat(rest).as("the second writer's later ranges wait for the first writer").isNotDone();
    seq.complete(stripes, first, 1, 2);
    Blocked.awaitBlockedOn(restThread, stripe.and(l -> l.getIdentityHashCode() != stripe200.getIdentityHashCode()),
        "the second writer, past stripe 200, waits for stripe 900");
    assertThat(rest).as("stripe 900 is still the first writer's").isNotDone();
    seq.complete(stripes, first, 2, 3);
    rest.get(10, TimeUnit.SECONDS);

    seq.complete(stripes, second);
    CompletableFuture<Void> quiescent = CompletableFuture.runAsync(() -> {
      seq.lock(stripes);
      try {
        seq.awaitQuiescent(stripes);
      } finally {
        seq.unlock(stripes);
      }
    });
    quiescent.get(10, TimeUnit.SECONDS);
  }

  @Test
  void byChunk_keepsEachChunksMutationsInBatchOrder() {
    List<Mutation> batch = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      byte[] k = ("key" + (i % 97)).getBytes(StandardCharsets.UTF_8);
      batch.add(Mutation.put(k, Integer.toString(i).getBytes(StandardCharsets.UTF_8)));
    }
    List<List<Mutation>> parts = KeySequencer.byChunk(batch);
    assertThat(parts).hasSize(KeySequencer.CHUNKS);
    int total = 0;
    for (int c = 0; c < parts.size(); c++) {
      int previous = -1;
      for (Mutation m : parts.get(c)) {
        assertThat(KeySequencer.chunkOf(KeySequencer.stripe(m.key()))).isEqualTo(c);
        int order = Integer.parseInt(new String(m.value(), StandardCharsets.UTF_8));
        assertThat(order).isGreaterThan(previous);
        previous = order;
      }
      total += parts.get(c).size();
    }
    assertThat(total).isEqualTo(batch.size());
  }
}
