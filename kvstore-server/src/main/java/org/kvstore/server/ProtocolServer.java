package org.kvstore.server;

import java.net.InetSocketAddress;

/**
 * One protocol front end of the server process (RESP now; HTTP and Thrift join later through the
 * same interface). {@link KVStoreServer} starts each configured front end, logs where it listens,
 * and on shutdown stops them all from accepting before it drains and closes the store.
 *
 * <p>Thread safety: {@link #start} and {@link #stopAccepting} are called by one thread (the server's
 * life cycle); {@link #address()} may be read from any thread after start.
 */
public interface ProtocolServer {

  /** A short name for logs, for example {@code RESP}. */
  String name();

  /**
   * Binds and starts accepting connections.
   *
   * @throws ServerStartException if the address cannot be bound (in use, not local, ...)
   */
  void start();

  /** The bound address (the actual port when 0 was asked for). REQUIRES: started. */
  InetSocketAddress address();

  /** Closes the listening socket; established connections keep running. Idempotent. */
  void stopAccepting();

  /** Closes every connection. Idempotent. */
  void closeConnections();
}
