package org.kvstore.server.thrift;

/**
 * Told of every Thrift call answered: the one place where the server's metrics count requests by
 * protocol {@code thrift} and method ({@code org.kvstore.server.KVStoreServer} passes it to
 * {@link ThriftConnectionHandler}; {@link #NONE} counts nothing).
 *
 * <p>Thread safety: implementations must be thread-safe (called from event loops and workers).
 */
@FunctionalInterface
public interface ThriftRequestObserver {
  ThriftRequestObserver NONE = method -> {};

  /** A call of {@code method} was answered (with a result or an exception). */
  void served(String method);
}
