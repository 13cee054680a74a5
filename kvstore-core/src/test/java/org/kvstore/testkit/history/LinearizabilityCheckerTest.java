package org.kvstore.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvstore.testkit.history.CheckResult.Verdict;

/** Hand-written histories, linearizable and not; times are in arbitrary units. */
class LinearizabilityCheckerTest {
  private final LinearizabilityChecker<RegisterModel.Register> checker = LinearizabilityChecker.forRegisters();
  private final List<Operation> history = new ArrayList<>();

  private void ok(String key, Command command, String argument, long invoke, long complete, Object result) {
    history.add(Operation.ok(history.size(), history.size(), key, command, argument, invoke, complete, result));
  }

  private void ok(Command command, String argument, long invoke, long complete, Object result) {
    ok("k", command, argument, invoke, complete, result);
  }

  private void info(Command command, String argument, long invoke) {
    history.add(Operation.info(history.size(), history.size(), "k", command, argument, invoke));
  }

  private Verdict verdict() {
    return checker.check(history).verdict();
  }

  @Test
  void check_sequentialWriteThenRead_linearizable() {
    ok(Command.SET, "a", 0, 10, true);
    ok(Command.GET, null, 20, 30, "a");
    assertThat(verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void check_readOfOldValueAfterWriteCompleted_notLinearizable() {
    ok(Command.SET, "a", 0, 10, true);
    ok(Command.SET, "b", 20, 30, true);
    ok(Command.GET, null, 40, 50, "a");
    CheckResult result = checker.check(history);
    assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    assertThat(result.report()).contains("key k: NOT_LINEARIZABLE").contains("=> #2").contains("GET -> \"a\"");
  }

  @Test
  void check_readOverlappingWrite_mayReturnOldOrNew() {
    ok(Command.SET, "a", 0, 10, true);
    ok(Command.SET, "b", 20, 60, true);
    ok(Command.GET, null, 30, 40, "a");
    ok(Command.GET, null, 35, 45, "b");
    assertThat(verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void check_invocationAtTheSameInstantAsACompletion_countsAsConcurrent() {
    ok(Command.SET, "a", 0, 10, true);
    ok(Command.GET, null, 10, 20, null); // one clock tick cannot order them
    assertThat(verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void check_readOverlappingWrite_neverReturnsAValueNobodyWrote() {
    ok(Command.SET, "a", 0, 10, true);
    ok(Command.GET, null, 5, 15, "z");
    assertThat(verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void check_sequentialReadsSeeConcurrentWritesInTwoOrders_notLinearizable() {
    ok(Command.SET, "a", 0, 100, true);
    ok(Command.SET, "b", 0, 100, true);
    ok(Command.GET, null, 10, 20, "a");
    ok(Command.GET, null, 30, 40, "b");
    ok(Command.GET, null, 50, 60, "a");
    assertThat(verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void check_overlappingReads_mayBeOrderedEitherWay() {
    ok(Command.SET, "a", 0, 100, true);
    ok(Command.SET, "b", 0, 100, true);
    ok(Command.GET, null, 10, 50, "a");
    ok(Command.GET, null, 30, 70, "b");
    ok(Command.GET, null, 40, 90, "a"); // before the read of b: they overlap
    assertThat(verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void check_indeterminateWrite_mayHaveHappenedLateOrNever() {
    info(Command.SET, "a", 0);
    ok(Command.GET, null, 100, 110, null);
    ok(Command.GET, null, 200, 210, "a");
    assertThat(verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void check_indeterminateWrite_cannotBeUndone() {
    info(Command.SET, "a", 0);
    ok(Command.GET, null, 100, 110, "a");
    ok(Command.GET, null, 200, 210, null);
    assertThat(verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void check_indeterminateWriteInvokedAfterTheRead_cannotExplainIt() {
    ok(Command.SET, "a", 0, 10, true);
    ok(Command.GET, null, 20, 30, "b");
    info(Command.SET, "b", 50);
    assertThat(verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void check_indeterminateReadsAndFailedOps_areIgnored() {
    ok(Command.SET, "a", 0, 10, true);
    info(Command.GET, null, 5);
    history.add(new Operation(history.size(), 9, "k", Command.SET, "zzz", 12, 14, Operation.Status.FAIL, null));
    ok(Command.GET, null, 20, 30, "a");
    CheckResult result = checker.check(history);
    assertThat(result.verdict()).isEqualTo(Verdict.LINEARIZABLE);
    assertThat(result.keys().get(0).operations()).isEqualTo(2);
  }

  @Test
  void check_lostIncrement_notLinearizable() {
    ok(Command.INCR, null, 0, 10, 1L);
    ok(Command.INCR, null, 20, 30, 1L);
    assertThat(verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void check_concurrentIncrementsBothReturningOne_notLinearizable() {
    ok(Command.INCR, null, 0, 10, 1L);
    ok(Command.INCR, null, 0, 10, 1L);
    assertThat(verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    history.set(1, Operation.ok(1, 1, "k", Command.INCR, null, 0, 10, 2L));
    assertThat(verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void check_incrementOfNonInteger_isAnErrorAndLeavesTheValue() {
    ok(Command.SET, "v1", 0, 10, true);
    ok(Command.INCR, null, 20, 30, Operation.ErrorReply.NOT_AN_INTEGER);
    ok(Command.GET, null, 40, 50, "v1");
    ok(Command.SET, "41", 60, 70, true);
    ok(Command.INCR, null, 80, 90, 42L);
    assertThat(verdict()).isEqualTo(Verdict.LINEARIZABLE);
    history.set(1, Operation.ok(1, 1, "k", Command.INCR, null, 20, 30, 1L));
    assertThat(verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void check_twoConcurrentSetNxBothSucceeding_notLinearizable() {
    ok(Command.SET_NX, "a", 0, 10, true);
    ok(Command.SET_NX, "b", 0, 10, true);
    assertThat(verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    history.set(1, Operation.ok(1, 1, "k", Command.SET_NX, "b", 0, 10, false));
    ok(Command.GET, null, 20, 30, "a");
    assertThat(verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void check_setXxDelAppend_followTheirSemantics() {
    ok(Command.SET_XX, "a", 0, 10, false);
    ok(Command.APPEND, "xy", 20, 30, 2L);
    ok(Command.SET_XX, "abc", 40, 50, true);
    ok(Command.APPEND, "d", 60, 70, 4L);
    ok(Command.DEL, null, 80, 90, 1L);
    ok(Command.DEL, null, 100, 110, 0L);
    ok(Command.GET, null, 120, 130, null);
    assertThat(verdict()).isEqualTo(Verdict.LINEARIZABLE);
    history.set(3, Operation.ok(3, 3, "k", Command.APPEND, "d", 60, 70, 3L));
    assertThat(verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void check_keysAreCheckedApart_andTheReportNamesTheFailingOne() {
    ok("good", Command.SET, "a", 0, 10, true);
    ok("good", Command.GET, null, 20, 30, "a");
    ok("bad", Command.SET, "a", 0, 10, true);
    ok("bad", Command.GET, null, 20, 30, null);
    CheckResult result = checker.check(history);
    assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    assertThat(result.keys()).extracting(CheckResult.KeyResult::key, CheckResult.KeyResult::verdict)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("bad", Verdict.NOT_LINEARIZABLE),
            org.assertj.core.groups.Tuple.tuple("good", Verdict.LINEARIZABLE));
    assertThat(result.report()).contains("key bad").doesNotContain("key good");
  }

  @Test
  void check_counterexample_isTheSmallestFailingPrefix() {
    for (int i = 0; i < 50; i++) {
      ok(Command.SET, "v" + i, i * 100, i * 100 + 10, true);
      ok(Command.GET, null, i * 100 + 20, i * 100 + 30, "v" + i);
    }
    int stale = history.size();
    ok(Command.GET, null, 5000, 5010, "v3");
    for (int i = 51; i < 60; i++) {
      ok(Command.SET, "v" + i, i * 100, i * 100 + 10, true);
    }
    String report = checker.check(history).report();
    assertThat(report).contains("cut at the reply of #" + stale).contains("=> #" + stale + " ")
        .doesNotContain("SET v55");
  }

  @Test
  void check_manyConcurrentIndeterminateWritesAndATinyBudget_unknownNotAHang() {
    for (int i = 0; i < 40; i++) {
      info(Command.SET, "v" + i, i);
    }
    ok(Command.GET, null, 100, 110, "never-written");
    LinearizabilityChecker<RegisterModel.Register> small =
        new LinearizabilityChecker<>(new RegisterModel(), Duration.ofSeconds(5), 10_000);
    assertThat(small.check(history).verdict()).isEqualTo(Verdict.UNKNOWN);
  }

  @Test
  void new_nonPositiveBudget_refused() {
    assertThatThrownBy(() -> new LinearizabilityChecker<>(new RegisterModel(), Duration.ZERO, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("budget");
  }
}
