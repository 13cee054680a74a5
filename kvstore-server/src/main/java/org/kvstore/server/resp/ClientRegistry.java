package org.kvstore.server.resp;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The open client connections (for {@code CLIENT LIST}, {@code INFO clients} and the maxclients
 * limit) and the server's counters.
 *
 * <p>Thread safety: thread-safe.
 */
public final class ClientRegistry {
  private final Map<Long, RespSession> clients = new ConcurrentSkipListMap<>();
  private final AtomicLong nextId = new AtomicLong(1);
  private final AtomicLong connected = new AtomicLong();
  private final LongAdder totalConnections = new LongAdder();
  private final LongAdder rejectedConnections = new LongAdder();
  private final LongAdder totalCommands = new LongAdder();

  long nextId() {
    return nextId.getAndIncrement();
  }

  /** Registers a client unless {@code maxClients} are connected. */
  boolean register(RespSession session, int maxClients) {
    if (connected.incrementAndGet() > maxClients) {
      connected.decrementAndGet();
      rejectedConnections.increment();
      return false;
    }
    clients.put(session.id(), session);
    totalConnections.increment();
    return true;
  }

  void unregister(RespSession session) {
    if (clients.remove(session.id()) != null) {
      connected.decrementAndGet();
    }
  }

  Collection<RespSession> all() {
    return clients.values();
  }

  long connected() {
    return connected.get();
  }

  long totalConnections() {
    return totalConnections.sum();
  }

  long rejectedConnections() {
    return rejectedConnections.sum();
  }

  void commandProcessed(int n) {
    totalCommands.add(n);
  }

  long totalCommands() {
    return totalCommands.sum();
  }

  /** CONFIG RESETSTAT: the counters of connections and commands to zero. */
  void resetStats() {
    totalConnections.reset();
    rejectedConnections.reset();
    totalCommands.reset();
  }
}
