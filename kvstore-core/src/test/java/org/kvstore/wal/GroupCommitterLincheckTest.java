package org.kvstore.wal;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.junit.jupiter.api.Test;
import org.kvstore.testkit.Lincheck;

/**
 * {@link GroupCommitter} under Lincheck: each operation queues one record and waits until a round
 * covers it, leading the round or following another thread's. Every {@code commit} must return, and
 * only once its record is covered; a lost wake-up (a follower parked that no round end wakes)
 * leaves a thread parked forever, which model checking reports as a deadlock. The followers park
 * at once here; the stress run has them spin first as in the log.
 */
public class GroupCommitterLincheckTest {
  private final GroupCommitter committer = newCommitter();
  /** The last LSN handed out (the log's queue). */
  private final AtomicLong queued = new AtomicLong();
  /** Everything at or below it was covered by a round (the log's written LSN). */
  private final AtomicLong done = new AtomicLong();

  /** Followers park at once instead of spinning on the clock, which a model checker cannot replay. */
  GroupCommitter newCommitter() {
    return new GroupCommitter(-1);
  }

  /** Queues a record and waits for it; returns whether it was covered when the wait returned. */
  @Operation
  public boolean commit() throws IOException {
    long lsn = queued.incrementAndGet();
    committer.await(lsn, done::get, this::round, () -> {});
    return done.get() >= lsn;
  }

  /** One round covers everything queued when it starts, as the log's drain does. */
  private void round() {
    done.set(queued.get());
  }

  @Test
  void await_modelChecked_everyCommitReturnsCovered() {
    Lincheck.modelCheck(GroupCommitterLincheckTest.class, 3, 2);
  }

  @Test
  void await_stressed_everyCommitReturnsCovered() {
    Lincheck.stress(Spinning.class, 3, 3);
  }

  /** The same operations with the log's spinning followers, for the stress run. */
  public static class Spinning extends GroupCommitterLincheckTest {
    @Override
    GroupCommitter newCommitter() {
      return new GroupCommitter();
    }
  }
}
