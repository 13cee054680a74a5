package org.kvstore.bench.load.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumMap;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OperationMixTest {
  @Test
  void choose_ycsbB_drawsEachOperationInItsShare() {
    OperationMix mix = YcsbWorkloads.named("b", 100).build().mix();
    SplittableRandom r = new SplittableRandom(1);
    EnumMap<Op, Integer> counts = new EnumMap<>(Op.class);
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      counts.merge(mix.choose(r.nextDouble()), 1, Integer::sum);
    }
    assertThat(counts.keySet()).containsExactlyInAnyOrder(Op.GET, Op.PUT);
    assertThat(counts.get(Op.GET) / (double) n).isCloseTo(0.95, org.assertj.core.data.Offset.offset(0.005));
  }

  @Test
  void parse_percentages_areNormalised() {
    OperationMix mix = OperationMix.parse("get=75,scan=25");
    assertThat(mix.share(Op.GET)).isEqualTo(0.75);
    assertThat(mix.share(Op.SCAN)).isEqualTo(0.25);
    assertThat(mix.share(Op.PUT)).isZero();
  }

  @Test
  void parse_unknownOperation_namesIt() {
    assertThatThrownBy(() -> OperationMix.parse("get=1,frob=1")).hasMessageContaining("frob");
  }

  @Test
  void ycsb_everyCoreWorkload_hasItsMix() {
    assertThat(YcsbWorkloads.named("a", 10).build().mix().share(Op.PUT)).isEqualTo(0.5);
    assertThat(YcsbWorkloads.named("c", 10).build().mix().share(Op.GET)).isEqualTo(1.0);
    assertThat(YcsbWorkloads.named("d", 10).build().distribution()).isEqualTo(KeyDistribution.LATEST);
    assertThat(YcsbWorkloads.named("e", 10).build().mix().share(Op.SCAN)).isEqualTo(0.95);
    assertThat(YcsbWorkloads.named("f", 10).build().mix().share(Op.RMW)).isEqualTo(0.5);
  }
}
