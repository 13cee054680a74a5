package org.kvstore.server.output;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The server's bounds on the reply bytes it holds for its clients, as Redis'
 * {@code client-output-buffer-limit normal <hard> <soft> <seconds>} plus a total over all clients
 * (RELIABILITY.md T10): a client whose buffered replies go over {@code hardBytes}, or stay over
 * {@code softBytes} for {@code softSeconds}, is disconnected; when all clients together hold more
 * than {@code totalBytes}, the largest are disconnected first. Each disconnection is logged (WARN,
 * with the client's address, name, last command and bytes) and counted
 * ({@link #disconnections()}: {@code client_output_buffer_limit_disconnections} in INFO stats).
 *
 * <p>"Buffered" is what the server holds for a client and has not yet handed to the socket: the
 * replies queued in the channel ({@link OutputGuard}) plus the encoded part of a reply still being
 * built ({@link ReplyBudget#tryReserve}).
 *
 * <p>A limit of 0 is off. Thread safety: thread-safe.
 */
public final class OutputLimits {
  private final long hardBytes;
  private final long softBytes;
  private final long softNanos;
  private final long totalBytes;
  private final LongAdder disconnections = new LongAdder();
  private final Set<OutputGuard> guards = ConcurrentHashMap.newKeySet();

  /**
   * REQUIRES: every argument >= 0.
   *
   * @param hardBytes a client over it is disconnected at once; 0 = no limit
   * @param softBytes a client over it for {@code softSeconds} is disconnected; 0 = no limit
   * @param softSeconds see {@code softBytes}; 0 = the soft limit is off
   * @param totalBytes when all clients together hold more, the largest are disconnected; 0 = no limit
   */
  public OutputLimits(long hardBytes, long softBytes, long softSeconds, long totalBytes) {
    if (hardBytes < 0 || softBytes < 0 || softSeconds < 0 || totalBytes < 0) {
      throw new IllegalArgumentException("output buffer limits must be >= 0: hard=" + hardBytes
          + " soft=" + softBytes + " seconds=" + softSeconds + " total=" + totalBytes);
    }
    this.hardBytes = hardBytes;
    this.softBytes = softSeconds == 0 ? 0 : softBytes;
    this.softNanos = TimeUnit.SECONDS.toNanos(softSeconds);
    this.totalBytes = totalBytes;
  }

  /** No limits (tests of the command layer alone). */
  public static OutputLimits unlimited() {
    return new OutputLimits(0, 0, 0, 0);
  }

  /**
   * A guard for one new connection of {@code protocol}; {@code client} describes it for the log
   * line (called only when it is disconnected).
   */
  public OutputGuard newGuard(String protocol, Supplier<String> client) {
    return new OutputGuard(this, protocol, client);
  }

  /** Clients disconnected for going over a limit since start. */
  public long disconnections() {
    return disconnections.sum();
  }

  /** Bytes all clients hold now (a sum over the clients: not for a hot path). */
  public long totalBuffered() {
    long sum = 0;
    for (OutputGuard g : guards) {
      sum += g.buffered();
    }
    return sum;
  }

  /**
   * A client's bytes from which its writes check the server's total: a sixteenth of the total limit,
   * at most 64 KiB, so the sum over all clients is taken only when one holds a fair share.
   */
  long totalCheckFrom() {
    return Math.min(64 * 1024, totalBytes / 16);
  }

  long hardBytes() {
    return hardBytes;
  }

  long softBytes() {
    return softBytes;
  }

  long softNanos() {
    return softNanos;
  }

  long totalLimit() {
    return totalBytes;
  }

  void disconnected() {
    disconnections.increment();
  }

  void opened(OutputGuard g) {
    guards.add(g);
  }

  void closed(OutputGuard g) {
    guards.remove(g);
  }

  /**
   * The total is over the limit: disconnects the largest clients until what the others hold fits
   * (Redis' {@code maxmemory-clients} order). A disconnected client's bytes are freed shortly after,
   * on its event loop, so the ones already being disconnected are not counted.
   */
  synchronized void shed() {
    long kept = 0;
    for (OutputGuard g : guards) {
      if (!g.disconnecting()) {
        kept += g.buffered();
      }
    }
    while (kept > totalBytes) {
      OutputGuard largest = null;
      for (OutputGuard g : guards) {
        if (!g.disconnecting() && (largest == null || g.buffered() > largest.buffered())) {
          largest = g;
        }
      }
      if (largest == null) {
        return;
      }
      long all = kept;
      kept -= largest.buffered();
      largest.disconnect("total", totalBytes, all);
    }
  }
}
