package org.kvstore.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryRecorderTest {

  @Test
  void history_recordsResultsAndTimes_unfinishedOpsIndeterminate() {
    HistoryRecorder recorder = new HistoryRecorder();
    HistoryRecorder.Invocation set = recorder.invoke(0, "k", Command.SET, "a");
    HistoryRecorder.Invocation get = recorder.invoke(1, "k", Command.GET, null);
    HistoryRecorder.Invocation incr = recorder.invoke(2, "k", Command.INCR, null);
    HistoryRecorder.Invocation del = recorder.invoke(3, "k", Command.DEL, null);
    set.ok(true);
    get.info();
    del.fail();

    List<Operation> h = recorder.history();
    assertThat(h).extracting(Operation::id).containsExactly(0, 1, 2, 3);
    assertThat(h.get(0).status()).isEqualTo(Operation.Status.OK);
    assertThat(h.get(0).result()).isEqualTo(true);
    assertThat(h.get(0).completeNanos()).isGreaterThanOrEqualTo(h.get(0).invokeNanos());
    assertThat(h.get(1).status()).isEqualTo(Operation.Status.INFO);
    assertThat(h.get(1).completeNanos()).isEqualTo(Operation.NEVER);
    assertThat(h.get(2).status()).as("never completed").isEqualTo(Operation.Status.INFO);
    assertThat(h.get(3).status()).isEqualTo(Operation.Status.FAIL);
    incr.ok(1L);
    assertThat(recorder.history().get(2).status()).isEqualTo(Operation.Status.OK);
  }

  @Test
  void complete_twice_refused() {
    HistoryRecorder.Invocation inv = new HistoryRecorder().invoke(0, "k", Command.GET, null);
    inv.ok(null);
    assertThatThrownBy(() -> inv.info()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void operation_argumentMustMatchTheCommand() {
    assertThatThrownBy(() -> Operation.info(0, 0, "k", Command.SET, null, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Operation.info(0, 0, "k", Command.GET, "x", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
