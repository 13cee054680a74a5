package org.kvstore.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.cluster.slots.HashSlot;
import org.kvstore.testkit.history.Command;
import org.kvstore.testkit.history.NotDoneException;
import org.kvstore.testkit.history.RegisterClient;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A {@link RegisterClient} for a cluster that routes as a careful Redis Cluster client does, and
 * never repeats an operation that may have happened: it sends each key to the node it believes
 * serves the key's slot, and follows {@code -MOVED} (nothing was done there) to the named node, up
 * to five times; {@code -CLUSTERDOWN} (nothing was done either) is retried after a pause, and so is
 * a connection that cannot be opened (nothing was sent), for up to 20 s, with a new slot map. When
 * those run out, the operation certainly had no effect: {@link NotDoneException}. A failure after
 * the request was sent (reset, timeout, an error reply such as {@code ERR outcome unknown}) leaves
 * the operation indeterminate (thrown as it is), since the write may have been applied;
 * JedisCluster would retry it, which an APPEND or INCR must not be.
 *
 * <p>With {@code readFromReplicas}, GETs go to a node that does not serve the slot, after
 * {@code READONLY}: the replica reads of {@code cluster-stale-replica-reads}.
 */
final class ClusterRegisterClient implements RegisterClient {
  private final Map<Integer, Jedis> connections = new HashMap<>();
  private final List<Integer> ports;
  /** The port serving each slot as last learned; 0 when unknown. */
  private final int[] slotPorts = new int[HashSlot.COUNT];
  private final boolean readFromReplicas;

  private final long connectWaitNanos;

  ClusterRegisterClient(List<Integer> ports, boolean readFromReplicas) {
    this(ports, readFromReplicas, Duration.ofSeconds(20));
  }

  /** @param connectWait how long an operation waits for a node that refuses connections */
  ClusterRegisterClient(List<Integer> ports, boolean readFromReplicas, Duration connectWait) {
    this.ports = List.copyOf(ports);
    this.readFromReplicas = readFromReplicas;
    this.connectWaitNanos = connectWait.toNanos();
    refreshSlots();
  }

  /** The connection to {@code port}, opened (and put in READONLY mode) when there is none. */
  private Jedis connection(int port) {
    return connections.computeIfAbsent(port, p -> {
      Jedis j = new Jedis(new HostAndPort("127.0.0.1", p), DefaultJedisClientConfig.builder()
          .connectionTimeoutMillis(1000).socketTimeoutMillis(10_000).build());
      if (readFromReplicas) {
        try {
          j.readonly();
        } catch (RuntimeException e) {
          j.close();
          throw e;
        }
      }
      return j;
    });
  }

  /** Reads the slot map from the first node that answers; throws when none does. */
  private void refreshSlots() {
    RuntimeException last = null;
    for (int port : ports) {
      try {
        for (Object range : connection(port).clusterSlots()) {
          List<?> r = (List<?>) range;
          int serving = (int) (long) (Long) ((List<?>) r.get(2)).get(1);
          for (long s = (Long) r.get(0); s <= (Long) r.get(1); s++) {
            slotPorts[(int) s] = serving;
          }
        }
        return;
      } catch (RuntimeException e) {
        drop(port);
        last = e;
      }
    }
    throw last;
  }

  private void drop(int port) {
    Jedis j = connections.remove(port);
    if (j != null) {
      j.close();
    }
  }

  @Override
  public Object execute(Command command, String key, String argument) {
    int slot = HashSlot.of(key.getBytes(StandardCharsets.UTF_8));
    int port = slotPorts[slot];
    if (readFromReplicas && command == Command.GET) {
      for (int p : ports) {
        if (p != port) {
          port = p;
          break;
        }
      }
    }
    long connectDeadline = System.nanoTime() + connectWaitNanos;
    for (int attempt = 0; ; attempt++) {
      Jedis j;
      try {
        j = connection(port); // READONLY is sent on a new connection, before the operation
        j.getConnection().connect(); // no-op when connected
      } catch (JedisConnectionException refused) {
        // Nothing was sent: learn the slot map again and retry, as cluster clients do, for a while.
        drop(port);
        if (System.nanoTime() - connectDeadline > 0) {
          throw new NotDoneException("no connection to port " + port + " for " + key + ", nothing sent", refused);
        }
        pause();
        try {
          refreshSlots();
        } catch (RuntimeException none) {
          // every node down: try again after the pause
        }
        port = slotPorts[slot] != 0 ? slotPorts[slot] : port;
        if (readFromReplicas && command == Command.GET) {
          port = anyOtherThan(slotPorts[slot], port);
        }
        attempt--;
        continue;
      }
      try {
        return new JedisRegisterClient(j).execute(command, key, argument);
      } catch (JedisDataException e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        if (attempt < 5 && m.startsWith("MOVED ")) {
          String endpoint = m.split(" ")[2];
          port = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
          slotPorts[slot] = port;
          continue;
        }
        if (attempt < 5 && m.startsWith("CLUSTERDOWN")) {
          pause();
          continue;
        }
        if (m.startsWith("MOVED ") || m.startsWith("CLUSTERDOWN")) {
          throw new NotDoneException(command + " " + key + " still refused after " + attempt + " retries", e);
        }
        throw e;
      } catch (RuntimeException e) {
        // Connection refused, reset or timed out: maybe applied. Learn the slot map for next time.
        drop(port);
        try {
          refreshSlots();
        } catch (RuntimeException none) {
          e.addSuppressed(none);
        }
        throw e;
      }
    }
  }

  private int anyOtherThan(int serving, int fallback) {
    for (int p : ports) {
      if (p != serving) {
        return p;
      }
    }
    return fallback;
  }

  private static void pause() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    for (Jedis j : connections.values()) {
      j.close();
    }
    connections.clear();
  }
}
