package org.kvstore.bench.load.driver;

/**
 * A system under load: the embedded store, RocksDB, or a server over one protocol. A run opens one
 * {@link Session} per client thread.
 *
 * <p>Thread safety: thread-safe.
 */
public interface Driver extends AutoCloseable {

  /** A label for tables and charts, e.g. {@code lsm}, {@code rocksdb}, {@code resp}. */
  String name();

  /** A new client: a connection for a server, a handle on the shared store for an embedded one. */
  Session openSession();

  @Override
  void close();
}
