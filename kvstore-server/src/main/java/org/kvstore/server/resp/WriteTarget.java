package org.kvstore.server.resp;

import java.util.List;

/**
 * Where a group of simple writes goes (for {@code SET k v}: one table): requests of many connections
 * handled by the same event loop in the same loop turn are written to it together, as one batch,
 * by {@link WriteCoalescer}. Two requests belong to the same group when their targets are equal ({@code equals}/{@code hashCode}).
 *
 * <p>Thread safety: implementations are thread-safe; {@link #write} may run on a worker thread.
 */
public interface WriteTarget {

  /** Whether {@link #write} waits for I/O (an fsync), so it must run on a worker, not an event loop. */
  boolean blocking();

  /**
   * Writes {@code requests} (of any number of connections, in arrival order) and returns one reply
   * per request, in the same order. Never throws: failures become error replies.
   */
  List<RespMessage> write(List<RespRequest> requests);
}
