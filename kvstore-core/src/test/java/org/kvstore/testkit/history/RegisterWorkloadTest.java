package org.kvstore.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.kvstore.testkit.Seeds;
import org.kvstore.testkit.history.CheckResult.Verdict;
import org.kvstore.testkit.history.LinearizabilityCheckerSelfTest.Bug;
import org.kvstore.testkit.history.LinearizabilityCheckerSelfTest.FakeStore;

/** How {@link RegisterWorkload} records failures, and that it bounds each key's indeterminate writes. */
class RegisterWorkloadTest {
  private static final int CLIENTS = 8;

  /** A correct store whose every third write is lost in transit: applied or not, and unanswered. */
  private static RegisterClient.Factory flakyWrites(FakeStore store, long seed) {
    return () -> new RegisterClient() {
      private final Random rnd = new Random(seed + Thread.currentThread().getId());

      @Override
      public Object execute(Command command, String key, String argument) {
        if (command.mayWrite() && rnd.nextInt(3) == 0) {
          if (rnd.nextBoolean()) {
            store.execute(command, key, argument);
          }
          throw new IllegalStateException("connection reset (injected)");
        }
        return store.execute(command, key, argument);
      }

      @Override
      public void close() {}
    };
  }

  @Test
  void indeterminateWrites_moveTheSlotToANewKey_andTheHistoryIsDecided() throws InterruptedException {
    long seed = Seeds.seed("RegisterWorkloadTest.indeterminate");
    FakeStore store = new FakeStore(Bug.NONE, seed);
    RegisterWorkload workload = new RegisterWorkload(CLIENTS, 4, 200, Duration.ofSeconds(20), 6000, "w:", seed);
    List<Operation> history = workload.run(flakyWrites(store, seed));

    Map<String, Long> indeterminateWrites = history.stream()
        .filter(op -> op.status() == Operation.Status.INFO && op.command().mayWrite())
        .collect(Collectors.groupingBy(Operation::key, Collectors.counting()));
    // A third of the writes are lost in transit (how many writes there are depends on the threads'
    // interleaving): far more than one key may take, so the slots must have moved to new keys many
    // times for the bound below to hold.
    assertThat(indeterminateWrites.values().stream().mapToLong(Long::longValue).sum())
        .as("seed %d: indeterminate writes in all", seed).isGreaterThan(200);
    // The limit, plus one operation already under way on the old key per other client.
    assertThat(indeterminateWrites.values()).as("seed %d: indeterminate writes per key", seed)
        .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(RegisterWorkload.MAX_INDETERMINATE_WRITES + CLIENTS - 1L));
    CheckResult result = LinearizabilityChecker.forRegisters().check(history);
    assertThat(result.verdict()).as("seed %d: %s", seed, result.report()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void notDone_isRecordedAsFailed_andLeftOutOfTheCheck() throws InterruptedException {
    long seed = Seeds.seed("RegisterWorkloadTest.notDone");
    FakeStore store = new FakeStore(Bug.NONE, seed);
    RegisterWorkload workload = new RegisterWorkload(CLIENTS, 4, 200, Duration.ofSeconds(20), 2000, "n:", seed);
    List<Operation> history = workload.run(() -> new RegisterClient() {
      @Override
      public Object execute(Command command, String key, String argument) {
        if (command == Command.APPEND) {
          throw new NotDoneException("refused (injected)", null);
        }
        return store.execute(command, key, argument);
      }

      @Override
      public void close() {}
    });

    assertThat(history).filteredOn(op -> op.command() == Command.APPEND).isNotEmpty()
        .allSatisfy(op -> assertThat(op.status()).isEqualTo(Operation.Status.FAIL));
    assertThat(history).filteredOn(op -> op.status() == Operation.Status.INFO).isEmpty();
    assertThat(LinearizabilityChecker.forRegisters().check(history).verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }
}
