package org.kvstore.server.metrics;

/**
 * The request counters of one protocol front end, read when {@code /metrics} is scraped. A front
 * end counts on its request path with {@link java.util.concurrent.atomic.LongAdder}s in arrays
 * indexed by command (no lookup by name, no lock) and hands the sums over only here, so recording a
 * request costs a few uncontended additions.
 *
 * <p>Thread safety: implementations are thread-safe; a visit sees each counter at some moment of
 * the visit.
 */
@FunctionalInterface
public interface RequestCounts {

  /** What a visit reports of one command. */
  @FunctionalInterface
  interface Visitor {
    /**
     * One command that was requested at least once.
     *
     * @param command the command's name (RESP: lower case, {@code config|get} for a subcommand;
     *     HTTP: the route, e.g. {@code key.get})
     * @param ok requests answered with success
     * @param errors requests answered with an error (failed or refused)
     * @param buckets requests by latency bucket ({@link LatencyBuckets}), not cumulative; may be
     *     all zero for requests that were refused before they ran
     * @param sumNanos total time of the requests that ran
     */
    void command(String command, long ok, long errors, long[] buckets, long sumNanos);
  }

  /** Reports every command with a non-zero count. */
  void visit(Visitor visitor);
}
