package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcessCpuTimesTest {
  @Test
  void parse_readsUtimeAndStime_afterACommandNameWithSpacesAndParentheses() {
    String line = "4242 (java (kv) x) S 1 4242 4242 0 -1 4194560 51839 0 7 0 1234 567 0 0 20 0 42 0 "
        + "1729 5000000000 120000 18446744073709551615 1 1 0 0 0 0 0 4096 17635 0 0 0 17 1 0 0 0 0 0";
    ProcessCpuTimes.Split s = ProcessCpuTimes.parse(line);
    assertThat(s.userSeconds()).isEqualTo(12.34);
    assertThat(s.systemSeconds()).isEqualTo(5.67);
  }

  @Test
  void parse_rejectsALineWithoutTheFields() {
    assertThatThrownBy(() -> ProcessCpuTimes.parse("4242 (java) S 1 2"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too few fields");
    assertThatThrownBy(() -> ProcessCpuTimes.parse("garbage"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no command name");
  }

  @Test
  void totalSeconds_growsWithWork() {
    double before = ProcessCpuTimes.totalSeconds();
    assertThat(before).isPositive();
    long x = 0;
    long end = System.nanoTime() + 50_000_000L;
    while (System.nanoTime() < end) {
      x += Long.numberOfTrailingZeros(x + System.nanoTime());
    }
    assertThat(ProcessCpuTimes.totalSeconds()).as("after 50 ms of work (%d)", x).isGreaterThan(before);
  }
}
