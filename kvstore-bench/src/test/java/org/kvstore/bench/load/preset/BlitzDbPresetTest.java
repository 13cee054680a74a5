package org.kvstore.bench.load.preset;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BlitzDbPresetTest {
  @Test
  void flattened_twoStepsBelowFivePercent_isFlat() {
    assertThat(BlitzDbPreset.flattened(List.of(100.0, 200.0, 204.0, 206.0))).isTrue();
  }

  @Test
  void flattened_stillGrowing_isNotFlat() {
    assertThat(BlitzDbPreset.flattened(List.of(100.0, 104.0, 150.0))).isFalse();
    assertThat(BlitzDbPreset.flattened(List.of(100.0, 200.0, 204.0))).isFalse();
  }
}
