package org.kvstore.server.resp;

import java.util.ArrayList;
import java.util.List;

/**
 * The commands a connection queued between {@code MULTI} and {@code EXEC}, with their specs, and
 * whether one of them was refused (unknown, wrong arity, not allowed in a transaction, or past the
 * limits): then {@code EXEC} discards the whole transaction, as Redis does.
 *
 * <p>Memory is bounded: at most {@code maxCommands} commands and {@code maxBytes} bytes of
 * arguments are queued; the command that would pass either limit is refused.
 *
 * <p>Thread safety: confined to its connection (one request at a time; a request handed from the
 * event loop to a worker and back is ordered by the executors' hand-off).
 */
final class QueuedTransaction {
  /** A queued command: its spec, resolved when it was queued, and the request. */
  record Queued(RespCommandSpec spec, RespRequest request) {}

  private final int maxCommands;
  private final long maxBytes;
  private final List<Queued> commands = new ArrayList<>();
  private long bytes;
  private boolean aborted;

  QueuedTransaction(int maxCommands, long maxBytes) {
    this.maxCommands = maxCommands;
    this.maxBytes = maxBytes;
  }

  /**
   * Queues {@code request}; returns null, or the error reply text of a refused command (which also
   * marks the transaction aborted).
   */
  String queue(RespCommandSpec spec, RespRequest request) {
    if (spec.has(RespCommandSpec.NO_MULTI)) {
      aborted = true;
      return "ERR Command not allowed inside a transaction";
    }
    long size = 0;
    for (int i = 0; i < request.size(); i++) {
      size += request.arg(i).length;
    }
    if (commands.size() >= maxCommands || bytes + size > maxBytes) {
      aborted = true;
      return "ERR transaction too large: at most " + maxCommands + " commands and " + maxBytes
          + " bytes of arguments may be queued";
    }
    commands.add(new Queued(spec, request));
    bytes += size;
    return null;
  }

  /** A command before EXEC was refused: EXEC discards the transaction. */
  void abort() {
    aborted = true;
  }

  boolean aborted() {
    return aborted;
  }

  List<Queued> commands() {
    return commands;
  }

  int size() {
    return commands.size();
  }
}
