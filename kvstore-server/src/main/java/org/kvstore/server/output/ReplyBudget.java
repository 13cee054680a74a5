package org.kvstore.server.output;

/**
 * What one client may still buffer of its replies, for a command that builds a large reply before
 * it can send any of it (a RESP array's length comes first): the builder reserves each part it
 * encodes and releases it once the part is handed to the connection or dropped.
 *
 * <p>Thread safety: thread-safe (a builder runs on a worker while the connection's event loop
 * writes).
 */
public interface ReplyBudget {
  /** A budget without limits. */
  ReplyBudget UNLIMITED = new ReplyBudget() {
    @Override
    public boolean tryReserve(long bytes) {
      return true;
    }

    @Override
    public void release(long bytes) {}

    @Override
    public long buffered() {
      return 0;
    }

    @Override
    public boolean mayResume(long lowWaterMark) {
      return true;
    }
  };

  /**
   * Reserves {@code bytes} more. False (nothing reserved) when the client would go over its limit or
   * the server over its total: the client is then being disconnected, and the builder stops and
   * drops what it holds.
   */
  boolean tryReserve(long bytes);

  /** Gives back {@code bytes} reserved earlier. */
  void release(long bytes);

  /** Bytes the client holds now: queued for its socket plus reserved. */
  long buffered();

  /**
   * Whether a producer that paused for the client to read may go on: the client holds no more than
   * {@code lowWaterMark}, or no more than its soft limit. A producer must not wait on a client under
   * its soft limit: one that stopped reading there is over no limit, nothing would disconnect it,
   * and the producer would wait as long as the connection lasts; going on, it takes the client over
   * the soft limit, whose seconds then end the wait. The count that allows it also tells the soft
   * limit's clock that the client was under it: a client that reads drains to there, which the
   * socket's progress alone does not report.
   */
  boolean mayResume(long lowWaterMark);
}
