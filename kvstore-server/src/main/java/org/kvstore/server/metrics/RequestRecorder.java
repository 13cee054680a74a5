package org.kvstore.server.metrics;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the requests of a front end whose commands are known up front (the HTTP routes): per
 * command, successes, errors, a latency histogram and the total time, each a {@link LongAdder}.
 *
 * <p>Thread safety: thread-safe.
 */
public final class RequestRecorder implements RequestCounts {
  private final List<String> names;
  private final LongAdder[] ok;
  private final LongAdder[] errors;
  private final LongAdder[] nanos;
  private final LongAdder[][] buckets;

  /** {@code names}: the commands, numbered by their position. */
  public RequestRecorder(List<String> names) {
    this.names = List.copyOf(names);
    int n = names.size();
    ok = adders(n);
    errors = adders(n);
    nanos = adders(n);
    buckets = new LongAdder[n][];
    for (int i = 0; i < n; i++) {
      buckets[i] = adders(LatencyBuckets.COUNT);
    }
  }

  private static LongAdder[] adders(int n) {
    LongAdder[] a = new LongAdder[n];
    for (int i = 0; i < n; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }

  /** The number of command {@code name}. @throws IllegalArgumentException when unknown */
  public int id(String name) {
    int i = names.indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException("unknown command " + name);
    }
    return i;
  }

  /** Command {@code id} was answered, successfully or not, {@code elapsedNanos} after it arrived. */
  public void record(int id, boolean success, long elapsedNanos) {
    (success ? ok : errors)[id].increment();
    nanos[id].add(elapsedNanos);
    buckets[id][LatencyBuckets.index(elapsedNanos)].increment();
  }

  @Override
  public void visit(Visitor visitor) {
    for (int i = 0; i < names.size(); i++) {
      long o = ok[i].sum();
      long e = errors[i].sum();
      if (o == 0 && e == 0) {
        continue;
      }
      long[] b = new long[LatencyBuckets.COUNT];
      for (int j = 0; j < b.length; j++) {
        b[j] = buckets[i][j].sum();
      }
      visitor.command(names.get(i), o, e, b, nanos[i].sum());
    }
  }
}
