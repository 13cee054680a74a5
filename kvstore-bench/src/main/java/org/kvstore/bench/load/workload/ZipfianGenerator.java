package org.kvstore.bench.load.workload;

import java.util.SplittableRandom;

/**
 * Zipf-distributed numbers in [0, items), item 0 the most popular: the method of Gray et al.,
 * "Quickly Generating Billion-Record Synthetic Databases" (SIGMOD 1994), as YCSB's
 * {@code site.ycsb.generator.ZipfianGenerator} implements it, for a fixed item count.
 *
 * <p>Thread safety: immutable; each thread passes its own random source.
 */
public final class ZipfianGenerator {
  /** YCSB's default skew ({@code ZipfianGenerator.ZIPFIAN_CONSTANT}). */
  public static final double YCSB_CONSTANT = 0.99;

  private final long items;
  private final double theta;
  private final double zetan;
  private final double alpha;
  private final double eta;
  private final double halfPowTheta;

  public ZipfianGenerator(long items, double theta) {
    this(items, theta, zeta(items, theta));
  }

  /** With {@code zetan} already known (YCSB precomputes it for its 10^10-item scrambled generator). */
  public ZipfianGenerator(long items, double theta, double zetan) {
    if (items < 1) {
      throw new IllegalArgumentException("items must be at least 1, was " + items);
    }
    this.items = items;
    this.theta = theta;
    this.zetan = zetan;
    double zeta2theta = zeta(2, theta);
    this.alpha = 1.0 / (1.0 - theta);
    this.eta = (1 - Math.pow(2.0 / items, 1 - theta)) / (1 - zeta2theta / zetan);
    this.halfPowTheta = 1.0 + Math.pow(0.5, theta);
  }

  /** sum over i in [1, n] of 1 / i^theta. */
  public static double zeta(long n, double theta) {
    double sum = 0;
    for (long i = 0; i < n; i++) {
      sum += 1 / Math.pow(i + 1, theta);
    }
    return sum;
  }

  public long items() {
    return items;
  }

  public double theta() {
    return theta;
  }

  public long next(SplittableRandom random) {
    double u = random.nextDouble();
    double uz = u * zetan;
    if (uz < 1.0) {
      return 0;
    }
    if (uz < halfPowTheta) {
      return 1;
    }
    long v = (long) (items * Math.pow(eta * u - eta + 1, alpha));
    return Math.min(v, items - 1);
  }
}
