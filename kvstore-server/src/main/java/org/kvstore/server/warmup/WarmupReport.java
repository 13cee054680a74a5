package org.kvstore.server.warmup;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a warm-up did: the requests it sent per protocol, how long it sent them, the JIT's
 * compilation time meanwhile, and what ended it.
 *
 * <p>Thread safety: immutable.
 *
 * @param requests requests sent per protocol ({@code RESP}, {@code HTTP}, {@code Thrift}), in order
 * @param exercised from the first request to the last reply
 * @param total from the start of the warm-up to the scratch directory's deletion
 * @param compiledMillis milliseconds the JIT spent compiling while the requests ran (0 if not reported)
 * @param endedBy why it ended
 */
public record WarmupReport(
    Map<String, Long> requests, Duration exercised, Duration total, long compiledMillis, EndedBy endedBy) {

  /** What ends a warm-up. */
  public enum EndedBy {
    /** {@code warmup-duration} is 0. */
    OFF("warm-up off"),
    /** No protocol port is on: nothing to exercise. */
    NO_PROTOCOL("no protocol on"),
    /** {@code warmup-duration} has passed. */
    DURATION("its duration"),
    /** The JIT's compilation time stopped growing ({@link CompilationWatch}). */
    COMPILATION_SETTLED("compilation settled"),
    /** The server was asked to stop. */
    STOP("a stop request");

    private final String text;

    EndedBy(String text) {
      this.text = text;
    }

    @Override
    public String toString() {
      return text;
    }
  }

  public WarmupReport {
    requests = Collections.unmodifiableMap(new LinkedHashMap<>(requests));
  }

  static WarmupReport skipped(EndedBy why) {
    return new WarmupReport(Map.of(), Duration.ZERO, Duration.ZERO, 0, why);
  }

  /** All requests sent. */
  public long totalRequests() {
    return requests.values().stream().mapToLong(Long::longValue).sum();
  }

  @Override
  public String toString() {
    StringBuilder per = new StringBuilder();
    requests.forEach((p, n) -> per.append(per.length() == 0 ? "" : ", ").append(p).append(' ').append(n));
    return String.format(Locale.ROOT, "%d requests (%s) in %.1f s, JIT compiling for %d ms meanwhile; ended by %s;"
            + " %.1f s in all",
        totalRequests(), per, exercised.toMillis() / 1000.0, compiledMillis, endedBy, total.toMillis() / 1000.0);
  }
}
