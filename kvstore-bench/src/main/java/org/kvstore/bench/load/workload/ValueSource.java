package org.kvstore.bench.load.workload;

import java.util.SplittableRandom;

/**
 * The values one thread writes: random bytes of the sizer's sizes. A fixed size reuses one array
 * (no driver keeps a value after its call returns), so large values cost no allocation per write.
 *
 * <p>Thread safety: confined to one thread.
 */
public final class ValueSource {
  private final ValueSizer sizer;
  private byte[] last = new byte[0];

  public ValueSource(ValueSizer sizer) {
    this.sizer = sizer;
  }

  public byte[] next(SplittableRandom random) {
    int size = sizer.next(random);
    if (size != last.length) {
      last = new byte[size];
      random.nextBytes(last);
    } else if (size > 0) {
      last[random.nextInt(size)] ^= 1; // not the same bytes every time, at no cost for large values
    }
    return last;
  }
}
