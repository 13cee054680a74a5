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
}
