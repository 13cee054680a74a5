package org.kvstore.bench.load.driver;

import java.util.List;

/**
 * One client of a {@link Driver}. Errors surface as exceptions ({@link DriverException} with the
 * operation and key); a missing key is {@code null} from {@link #get}.
 *
 * <p>Thread safety: confined to one thread.
 */
public interface Session extends AutoCloseable {

  /** The value of {@code key}, or null when it has none. The array is the caller's. */
  byte[] get(byte[] key);

  void put(byte[] key, byte[] value);

  /** Reads up to {@code count} records from {@code from} on; returns how many were read. */
  int scan(byte[] from, int count);

  /** Writes all pairs atomically (one batch, one transaction or one MSET). */
  void writeAtomically(List<byte[]> keys, List<byte[]> values);

  /**
   * Sends {@code requests} without waiting for each answer (pipelining) where the protocol allows it,
   * and returns when all are answered; {@code results[i]} receives request i's value for a get.
   * The default sends them one by one.
   */
  default void pipeline(List<Request> requests, byte[][] results) {
    for (int i = 0; i < requests.size(); i++) {
      Request r = requests.get(i);
      if (r.value() == null) {
        results[i] = get(r.key());
      } else {
        put(r.key(), r.value());
      }
    }
  }

  @Override
  void close();

  /** A pipelined get ({@code value == null}) or put. Thread safety: immutable, arrays not copied. */
  record Request(byte[] key, byte[] value) {}
}
