package org.kvstore.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.history.CheckResult.Verdict;

/**
 * The checker must catch seeded bugs: an in-memory store driven by the real workload (8 client
 * threads, 16 key slots) that, with 1% probability per operation, answers a read with the value
 * before the last write (a stale read cache), acknowledges a write without applying it (a lost
 * write) or an INCR without storing it (a lost update), is caught in every one of 20 seeded runs;
 * the same store without a bug passes all 20. {@code -Dkvstore.seed=N} replays the workload's
 * choices of a run (the thread interleaving is the machine's).
 */
class LinearizabilityCheckerSelfTest {
  private static final int RUNS = 20;
  private static final int OPS_PER_RUN = 20_000;

  enum Bug { NONE, STALE_READ, LOST_WRITE, LOST_INCR }

  /** A register store serialized by one lock: linearizable unless a bug is seeded. */
  static final class FakeStore {
    private final Bug bug;
    private final Random random;
    private final Map<String, String> values = new HashMap<>();
    private final Map<String, String> previous = new HashMap<>(); // before the last change

    FakeStore(Bug bug, long seed) {
      this.bug = bug;
      this.random = new Random(seed);
    }

    private boolean strikes(Bug kind) {
      return bug == kind && random.nextInt(100) == 0;
    }

    synchronized Object execute(Command command, String key, String argument) {
      String value = values.get(key);
      switch (command) {
        case GET:
          if (previous.containsKey(key) && strikes(Bug.STALE_READ)) {
            return previous.get(key);
          }
          return value;
        case SET:
          change(key, argument);
          return true;
        case SET_NX:
          if (value == null) {
            change(key, argument);
          }
          return value == null;
        case SET_XX:
          if (value != null) {
            change(key, argument);
          }
          return value != null;
        case DEL:
          if (value != null) {
            change(key, null);
          }
          return value == null ? 0L : 1L;
        case INCR: {
          Long n = value == null ? Long.valueOf(0) : RegisterModel.parseRedisInteger(value);
          if (n == null || n == Long.MAX_VALUE) {
            return Operation.ErrorReply.NOT_AN_INTEGER;
          }
          if (!strikes(Bug.LOST_INCR)) {
            change(key, Long.toString(n + 1));
          }
          return n + 1;
        }
        case APPEND: {
          String next = (value == null ? "" : value) + argument;
          change(key, next);
          return (long) next.getBytes(StandardCharsets.UTF_8).length;
        }
        default:
          throw new IllegalArgumentException(command.toString());
      }
    }

    private void change(String key, String next) {
      if (strikes(Bug.LOST_WRITE)) {
        return; // acknowledged, never applied
      }
      previous.put(key, values.get(key));
      if (next == null) {
        values.remove(key);
      } else {
        values.put(key, next);
      }
    }
  }

  private static CheckResult run(Bug bug, long seed) throws InterruptedException {
    FakeStore store = new FakeStore(bug, seed);
    RegisterWorkload workload = new RegisterWorkload(8, 16, 200, Duration.ofSeconds(20), OPS_PER_RUN,
        "self:", seed);
    List<Operation> history = workload.run(() -> new RegisterClient() {
      @Override
      public Object execute(Command command, String key, String argument) {
        return store.execute(command, key, argument);
      }

      @Override
      public void close() {}
    });
    HistoryStats stats = HistoryStats.of(history);
    assertThat(stats.ok()).as("seed %d: %s", seed, stats).isEqualTo(OPS_PER_RUN);
    assertThat(stats.readsWithValue()).as("seed %d: %s", seed, stats).isGreaterThan(500);
    return LinearizabilityChecker.forRegisters().check(history);
  }

  private static void assertCaughtInEveryRun(Bug bug) throws InterruptedException {
    long seed = Seeds.seed("LinearizabilityCheckerSelfTest." + bug);
    for (int i = 0; i < RUNS; i++) {
      CheckResult result = run(bug, seed + i);
      assertThat(result.verdict()).as("run %d, seed %d (base %d): %s", i, seed + i, seed, result.report())
          .isEqualTo(Verdict.NOT_LINEARIZABLE);
      assertThat(result.report()).contains("smallest failing prefix");
    }
  }

  @Test
  void check_correctStore_linearizableInEveryRun() throws InterruptedException {
    long seed = Seeds.seed("LinearizabilityCheckerSelfTest.NONE");
    for (int i = 0; i < RUNS; i++) {
      CheckResult result = run(Bug.NONE, seed + i);
      assertThat(result.verdict()).as("run %d, seed %d (base %d): %s", i, seed + i, seed, result.report())
          .isEqualTo(Verdict.LINEARIZABLE);
    }
  }

  @Test
  void check_staleReads_caughtInEveryRun() throws InterruptedException {
    assertCaughtInEveryRun(Bug.STALE_READ);
  }

  @Test
  void check_lostWrites_caughtInEveryRun() throws InterruptedException {
    assertCaughtInEveryRun(Bug.LOST_WRITE);
  }

  @Test
  void check_lostIncrements_caughtInEveryRun() throws InterruptedException {
    assertCaughtInEveryRun(Bug.LOST_INCR);
  }
}
