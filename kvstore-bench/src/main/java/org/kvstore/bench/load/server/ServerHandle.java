package org.kvstore.bench.load.server;

/**
 * A server the load generator started for a run, on loopback: its ports (-1 for a protocol it does
 * not serve) and how to stop it.
 *
 * <p>Thread safety: thread-safe.
 */
public interface ServerHandle extends AutoCloseable {
  String HOST = "127.0.0.1";

  /** A label for tables: {@code kvstore} or {@code redis}. */
  String name();

  int respPort();

  int httpPort();

  int thriftPort();

  /** Stops the server cleanly (it flushes and closes its store). */
  @Override
  void close();
}
