package org.kvstore.bench.load.report;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * One measured line: an operation of one experiment on one system with its parameters, as the
 * median over the repetitions (ops/s also as its min and max). Latencies in milliseconds.
 *
 * <p>Thread safety: immutable.
 */
public record ResultRow(
    String experiment,
    String system,
    Map<String, String> params,
    String op,
    int repeats,
    long ops,
    double seconds,
    double opsPerSecond,
    double opsPerSecondMin,
    double opsPerSecondMax,
    double meanMs,
    double p50Ms,
    double p75Ms,
    double p99Ms,
    double p999Ms,
    double maxMs,
    long misses) {

  public ResultRow {
    params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }

  public String param(String name) {
    String v = params.get(name);
    if (v == null) {
      throw new IllegalArgumentException("row " + experiment + "/" + system + " has no parameter " + name);
    }
    return v;
  }

  /** {@code threads=4;value=512}: the parameters in one CSV cell. */
  public String paramsText() {
    StringJoiner j = new StringJoiner(";");
    params.forEach((k, v) -> j.add(k + "=" + v));
    return j.toString();
  }

  /** The spread of ops/s over the repetitions, relative to the median: (max - min) / median. */
  public double spread() {
    return opsPerSecond == 0 ? 0 : (opsPerSecondMax - opsPerSecondMin) / opsPerSecond;
  }
}
