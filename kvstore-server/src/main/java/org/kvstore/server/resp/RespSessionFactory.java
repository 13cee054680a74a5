package org.kvstore.server.resp;

import java.net.SocketAddress;

/**
 * Creates the {@link RespSession} of each accepted connection.
 *
 * <p>Thread safety: thread-safe (called from every event loop).
 */
public interface RespSessionFactory {

  /**
   * A session for a new connection, or {@code null} when the server refuses more clients (the
   * handler then answers {@code -ERR max number of clients reached} and closes).
   */
  RespSession open(SocketAddress remote, SocketAddress local);

  /** Largest bulk string a new connection accepts (Redis {@code proto-max-bulk-len}). */
  long maxBulkBytes();

  /** Most arguments in one request a new connection accepts. */
  int maxMultibulk();
}
