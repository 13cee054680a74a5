package org.kvstore.bench.load.server;

import java.time.Duration;
import redis.clients.jedis.Jedis;

/**
 * Waits for a server to answer over RESP.
 *
 * <p>Thread safety: stateless.
 */
public final class Readiness {
  private static final long POLL_NANOS = 5_000_000;

  private Readiness() {}

  /** Polls {@code GET key} until it answers (any value, or none when {@code key} is null); returns the time waited. */
  public static Duration awaitFirstAnswer(String host, int port, byte[] key, Duration timeout, Process process)
      throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      if (process != null && !process.isAlive()) {
        throw new IllegalStateException("the server exited with " + process.exitValue() + " before it answered");
      }
      try (Jedis j = new Jedis(host, port, 1000)) {
        if (key == null) {
          j.ping();
          return Duration.ofNanos(System.nanoTime() - start);
        }
        if (j.get(key) != null) {
          return Duration.ofNanos(System.nanoTime() - start);
        }
      } catch (RuntimeException e) {
        last = e;
      }
      Thread.sleep(POLL_NANOS / 1_000_000);
    }
    throw new IllegalStateException("no answer from " + host + ":" + port + " within " + timeout, last);
  }
}
