package org.kvstore.testkit.history;

import java.util.List;

/**
 * What {@link LinearizabilityChecker} found, per key.
 *
 * <p>Thread safety: immutable.
 */
public record CheckResult(List<KeyResult> keys) {

  public enum Verdict {
    LINEARIZABLE,
    /** No order of the operations explains their results. */
    NOT_LINEARIZABLE,
    /** The search ran out of its time or step budget. */
    UNKNOWN
  }

  /**
   * One key's verdict.
   *
   * @param operations the operations checked (without failed ones and indeterminate reads)
   * @param indeterminateWrites how many of them are indeterminate (each multiplies the search)
   * @param steps search steps taken
   * @param counterexample for NOT_LINEARIZABLE: the smallest failing prefix's last operations; else ""
   */
  public record KeyResult(String key, Verdict verdict, int operations, int indeterminateWrites, long steps,
      String counterexample) {}

  public CheckResult {
    keys = List.copyOf(keys);
  }

  /** NOT_LINEARIZABLE if any key is, else UNKNOWN if any key is, else LINEARIZABLE. */
  public Verdict verdict() {
    Verdict v = Verdict.LINEARIZABLE;
    for (KeyResult k : keys) {
      if (k.verdict() == Verdict.NOT_LINEARIZABLE) {
        return Verdict.NOT_LINEARIZABLE;
      }
      if (k.verdict() == Verdict.UNKNOWN) {
        v = Verdict.UNKNOWN;
      }
    }
    return v;
  }

  public boolean isLinearizable() {
    return verdict() == Verdict.LINEARIZABLE;
  }

  /** A summary line, then every failing and unknown key with its counterexample. */
  public String report() {
    StringBuilder sb = new StringBuilder();
    long total = keys.stream().mapToLong(KeyResult::operations).sum();
    long steps = keys.stream().mapToLong(KeyResult::steps).sum();
    sb.append(verdict()).append(": ").append(keys.size()).append(" keys, ").append(total)
        .append(" operations, ").append(steps).append(" search steps");
    for (KeyResult k : keys) {
      if (k.verdict() != Verdict.LINEARIZABLE) {
        sb.append("\n\nkey ").append(k.key()).append(": ").append(k.verdict()).append(" (")
            .append(k.operations()).append(" operations, ").append(k.indeterminateWrites())
            .append(" of them indeterminate writes, ").append(k.steps()).append(" steps)");
        if (!k.counterexample().isEmpty()) {
          sb.append('\n').append(k.counterexample());
        }
      }
    }
    return sb.toString();
  }
}
