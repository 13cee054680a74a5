package org.kvstore.server.resp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of incomplete requests that all connections of a server may hold together: the
 * arguments a {@link RespDecoder} has copied out so far and the array a large bulk streams into. A
 * decoder reserves before it copies or grows; when a reservation would go over the limit, that
 * connection gets {@code -ERR Protocol error: ...} and is closed, so many clients that each send a
 * large bulk slowly cannot exhaust the heap together (each alone is bounded by
 * {@code proto-max-bulk-len}).
 *
 * <p>Thread safety: thread-safe (one atomic counter).
 */
public final class QueryBufferBudget {
  private final long limit;
  private final AtomicLong used = new AtomicLong();

  public QueryBufferBudget(long limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, was " + limit);
    }
    this.limit = limit;
  }

  /** No limit (tests of the decoder alone). */
  public static QueryBufferBudget unlimited() {
    return new QueryBufferBudget(Long.MAX_VALUE);
  }

  /** Reserves {@code n} bytes; false (nothing reserved) when that would exceed the limit. */
  public boolean tryReserve(long n) {
    while (true) {
      long u = used.get();
      if (u + n > limit) {
        return false;
      }
      if (used.compareAndSet(u, u + n)) {
        return true;
      }
    }
  }

  public void release(long n) {
    used.addAndGet(-n);
  }

  public long used() {
    return used.get();
  }

  public long limit() {
    return limit;
  }
}
