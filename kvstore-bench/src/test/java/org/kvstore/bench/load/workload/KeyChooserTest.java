package org.kvstore.bench.load.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyChooserTest {
  private static final int RECORDS = 1000;
  private static final int DRAWS = 200_000;

  private static long[] counts(KeyDistribution d) {
    KeyChooser c = KeyChooser.of(d, new KeySpace(RECORDS), 7);
    SplittableRandom r = new SplittableRandom(42);
    long[] counts = new long[RECORDS];
    for (int i = 0; i < DRAWS; i++) {
      long k = c.next(r);
      assertThat(k).isBetween(0L, (long) RECORDS - 1);
      counts[(int) k]++;
    }
    return counts;
  }

  /** The share of all draws that went to the {@code n} most drawn records. */
  private static double topShare(long[] counts, int n) {
    long[] sorted = counts.clone();
    Arrays.sort(sorted);
    long top = 0;
    for (int i = 0; i < n; i++) {
      top += sorted[sorted.length - 1 - i];
    }
    return top / (double) DRAWS;
  }

  @Test
  void zipfian_thousandRecords_hottestOnePercentTakesTenTimesItsShare() {
    // zipf(0.99) over 10^10 items (zeta 26.47), scrambled onto 1000 records: the 10 hottest items
    // alone draw sum(1/i^0.99, i=1..10) / 26.47 = 11% of the requests, ten times a uniform 1%.
    assertThat(topShare(counts(KeyDistribution.ZIPFIAN), 10)).isGreaterThan(0.1);
  }

  @Test
  void zipfian_hotRecords_areSpreadOverTheKeySpace() {
    long[] counts = counts(KeyDistribution.ZIPFIAN);
    int hottest = 0;
    for (int i = 1; i < RECORDS; i++) {
      if (counts[i] > counts[hottest]) {
        hottest = i;
      }
    }
    // Scrambled: the hottest record is not the first, as it would be for a plain zipfian.
    assertThat(hottest).isNotZero();
  }

  @Test
  void uniform_thousandRecords_coversEveryRecordEvenly() {
    long[] counts = counts(KeyDistribution.UNIFORM);
    double expected = DRAWS / (double) RECORDS;
    assertThat(Arrays.stream(counts).min().orElseThrow()).isGreaterThan((long) (expected * 0.6));
    assertThat(Arrays.stream(counts).max().orElseThrow()).isLessThan((long) (expected * 1.4));
    assertThat(topShare(counts, 10)).isLessThan(0.02);
  }

  @Test
  void sequential_draws_areInKeyOrderThenWrap() {
    KeyChooser c = KeyChooser.of(KeyDistribution.SEQUENTIAL, new KeySpace(5), 1);
    SplittableRandom r = new SplittableRandom(1);
    long[] seen = new long[7];
    for (int i = 0; i < seen.length; i++) {
      seen[i] = c.next(r);
    }
    assertThat(seen).containsExactly(0, 1, 2, 3, 4, 0, 1);
  }

  @Test
  void shuffled_onePass_drawsEveryRecordOnceNotInOrder() {
    int n = 10_007;
    KeyChooser c = KeyChooser.of(KeyDistribution.SHUFFLED, new KeySpace(n), 3);
    SplittableRandom r = new SplittableRandom(1);
    Set<Long> seen = new HashSet<>();
    int inPlace = 0;
    for (int i = 0; i < n; i++) {
      long k = c.next(r);
      seen.add(k);
      if (k == i) {
        inPlace++;
      }
    }
    assertThat(seen).hasSize(n);
    assertThat(inPlace).isLessThan(100);
  }

  @Test
  void latest_afterInserts_favoursTheNewestRecords() {
    KeySpace space = new KeySpace(RECORDS);
    KeyChooser c = KeyChooser.of(KeyDistribution.LATEST, space, 1);
    for (int i = 0; i < 100; i++) {
      space.nextInsert();
    }
    SplittableRandom r = new SplittableRandom(5);
    int newest = 0;
    for (int i = 0; i < 10_000; i++) {
      long k = c.next(r);
      assertThat(k).isBetween(0L, RECORDS + 99L);
      if (k >= RECORDS + 90) {
        newest++;
      }
    }
    assertThat(newest).isGreaterThan(3000);
  }
}
