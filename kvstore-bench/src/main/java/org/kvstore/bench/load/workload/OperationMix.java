package org.kvstore.bench.load.workload;

import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The share of each operation in a workload, such as YCSB A's {@code get=0.5,put=0.5}. Shares are
 * normalised to sum to 1; an operation with no share is never chosen.
 *
 * <p>Thread safety: immutable.
 */
public final class OperationMix {
  private final Op[] ops;
  private final double[] cumulative;
  private final EnumMap<Op, Double> shares;

  private OperationMix(EnumMap<Op, Double> weights) {
    double total = 0;
    for (double w : weights.values()) {
      if (w < 0 || Double.isNaN(w)) {
        throw new IllegalArgumentException("mix: a share must not be negative, was " + w);
      }
      total += w;
    }
    if (total <= 0) {
      throw new IllegalArgumentException("mix: the shares must add up to more than 0");
    }
    shares = new EnumMap<>(Op.class);
    int n = (int) weights.values().stream().filter(w -> w > 0).count();
    ops = new Op[n];
    cumulative = new double[n];
    double sum = 0;
    int i = 0;
    for (Map.Entry<Op, Double> e : weights.entrySet()) {
      if (e.getValue() > 0) {
        sum += e.getValue() / total;
        ops[i] = e.getKey();
        cumulative[i] = sum;
        shares.put(e.getKey(), e.getValue() / total);
        i++;
      }
    }
    cumulative[n - 1] = 1.0;
  }

  public static OperationMix of(Map<Op, Double> weights) {
    return new OperationMix(new EnumMap<>(weights));
  }

  public static OperationMix only(Op op) {
    return of(Map.of(op, 1.0));
  }

  /** Parses {@code get=0.95,put=0.05} (or percentages: {@code get=95,put=5}). */
  public static OperationMix parse(String text) {
    EnumMap<Op, Double> weights = new EnumMap<>(Op.class);
    for (String part : text.split(",")) {
      String[] kv = part.split("=");
      if (kv.length != 2) {
        throw new IllegalArgumentException("mix: '" + part + "' is not op=share (e.g. get=0.5,put=0.5)");
      }
      weights.merge(Op.parse(kv[0]), Double.parseDouble(kv[1].trim()), Double::sum);
    }
    return of(weights);
  }

  /** The operation for a uniform draw {@code u} in [0, 1). */
  public Op choose(double u) {
    for (int i = 0; i < cumulative.length - 1; i++) {
      if (u < cumulative[i]) {
        return ops[i];
      }
    }
    return ops[ops.length - 1];
  }

  /** The normalised share of {@code op}, 0 when it is not in the mix. */
  public double share(Op op) {
    return shares.getOrDefault(op, 0.0);
  }

  public Iterable<Op> ops() {
    return shares.keySet();
  }

  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(",");
    shares.forEach((op, s) -> j.add(op.label() + "=" + (Math.round(s * 1000) / 1000.0)));
    return j.toString();
  }
}
