package org.kvstore.server.warmup;

import java.io.IOException;

/**
 * A client of one protocol of the scratch server that sends it the requests the server's clients
 * send: one connection, opened by the constructor, closed by {@link #close}.
 *
 * <p>Thread safety: confined to the one thread that drives it.
 */
interface Exerciser extends AutoCloseable {
  /** The protocol, for the log: {@code RESP}, {@code HTTP} or {@code Thrift}. */
  String protocol();

  /**
   * Sends one round of requests (a pipelined batch, or a few requests one after the other) and
   * reads every reply.
   *
   * @return the requests sent
   * @throws IOException if the connection fails
   * @throws WarmupException on a reply the request cannot have (an error, a wrong value)
   */
  int round() throws IOException;

  @Override
  void close();
}
