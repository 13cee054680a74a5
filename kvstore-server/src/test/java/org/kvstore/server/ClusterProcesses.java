package org.kvstore.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.kvstore.cluster.slots.HashSlot;
import org.kvstore.testkit.LoopbackPorts;
import redis.clients.jedis.Jedis;

/**
 * Three server processes forming a cluster on loopback ({@code --cluster-node-id n1..n3}), each
 * with its data under {@code root/<id>}: start, SIGKILL, SIGSTOP/SIGCONT and restart nodes, and
 * find which node serves a key's slot.
 */
final class ClusterProcesses implements AutoCloseable {
  final Map<String, Integer> ports = new LinkedHashMap<>();
  private final Map<String, ServerProcess> nodes = Collections.synchronizedMap(new LinkedHashMap<>());
  private final Path root;
  private final String members;
  private final List<String> extraArgs;
  /** Each node's own Raft port when its links go through {@link #proxy}. */
  private final Map<String, Integer> raftListen = new LinkedHashMap<>();
  private final RaftLinkProxy proxy;

  ClusterProcesses(Path root, String... extraArgs) throws IOException {
    this(root, false, extraArgs);
  }

  /**
   * @param proxied whether the nodes' Raft links go through a {@link RaftLinkProxy} ({@link #proxy()}),
   *     which can cut them
   */
  ClusterProcesses(Path root, boolean proxied, String... extraArgs) throws IOException {
    this.root = root;
    this.extraArgs = List.of(extraArgs);
    for (int i = 1; i <= 3; i++) {
      ports.put("n" + i, LoopbackPorts.pick());
      raftListen.put("n" + i, LoopbackPorts.pick());
    }
    proxy = proxied ? new RaftLinkProxy(raftListen, id -> {
      ServerProcess p = node(id);
      return p != null && p.isAlive() ? p.pid() : null;
    }) : null;
    List<String> entries = new ArrayList<>();
    for (String id : ports.keySet()) {
      int raftPort = proxied ? proxy.port(id) : raftListen.get(id);
      entries.add(id + "=127.0.0.1:" + ports.get(id) + "@" + raftPort);
    }
    members = String.join(",", entries);
  }

  /** The proxy on the Raft links ({@code proxied} nodes only). */
  RaftLinkProxy proxy() {
    if (proxy == null) {
      throw new IllegalStateException("the nodes were started without a proxy on their Raft links");
    }
    return proxy;
  }

  List<String> ids() {
    return List.copyOf(ports.keySet());
  }

  /** Starts every node and waits until each reports {@code cluster_state:ok}. */
  void startAll() throws IOException, InterruptedException {
    for (String id : ports.keySet()) {
      launch(id);
    }
    for (String id : ports.keySet()) {
      node(id).awaitPort();
    }
    awaitClusterOk();
  }

  /** Starts node {@code id} on its data and waits for its port (not for its shards' leaders). */
  void start(String id) throws IOException, InterruptedException {
    launch(id);
    node(id).awaitPort();
  }

  private void launch(String id) throws IOException {
    List<String> args = new ArrayList<>(List.of("--data-dir", root.resolve(id).toString(), "--http-port", "0",
        "--thrift-port", "-1", "--cluster-node-id", id, "--cluster-nodes", members,
        "--cluster-election-timeout", "500"));
    if (proxy != null) {
      args.addAll(List.of("--cluster-raft-listen", "127.0.0.1:" + raftListen.get(id)));
    }
    args.addAll(extraArgs);
    nodes.put(id, ServerProcess.launch(args.toArray(String[]::new)));
  }

  ServerProcess node(String id) {
    return nodes.get(id);
  }

  void kill9(String id) throws InterruptedException {
    node(id).kill9();
  }

  void stop(String id) {
    signal(id, "STOP");
  }

  void resume(String id) {
    signal(id, "CONT");
  }

  private void signal(String id, String signal) {
    try {
      Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(node(id).pid())).start();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " of node " + id + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits (up to 60 s) until every running node reports {@code cluster_state:ok}. */
  void awaitClusterOk() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (String id : ids()) {
      ServerProcess p = node(id);
      if (p == null || !p.isAlive()) {
        continue;
      }
      while (true) {
        try (Jedis j = new Jedis("127.0.0.1", ports.get(id))) {
          if (j.clusterInfo().contains("cluster_state:ok")) {
            break;
          }
        } catch (RuntimeException notYet) {
          // starting
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("node " + id + " not ok: " + p.stdout());
        }
        Thread.sleep(100);
      }
    }
  }

  /** The node that serves {@code key}'s slot, as the first running node that answers says. */
  String nodeServing(String key) {
    return nodeServing(key, ids());
  }

  /** The node that serves {@code key}'s slot, as the first of {@code askIds} that answers says. */
  String nodeServing(String key, List<String> askIds) {
    int slot = HashSlot.of(key.getBytes(StandardCharsets.UTF_8));
    for (String id : askIds) {
      ServerProcess p = node(id);
      if (p == null || !p.isAlive()) {
        continue;
      }
      try (Jedis j = new Jedis("127.0.0.1", ports.get(id))) {
        for (Object range : j.clusterSlots()) {
          List<?> r = (List<?>) range;
          if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
            long port = (Long) ((List<?>) r.get(2)).get(1);
            return ports.entrySet().stream().filter(e -> e.getValue() == port).findFirst().orElseThrow().getKey();
          }
        }
      } catch (RuntimeException down) {
        // a stopped node: ask the next
      }
    }
    throw new AssertionError("no running node answers CLUSTER SLOTS");
  }

  @Override
  public void close() {
    if (proxy != null) {
      proxy.close();
    }
    synchronized (nodes) {
      for (ServerProcess p : nodes.values()) {
        try {
          if (p.isAlive()) {
            new ProcessBuilder("kill", "-CONT", Long.toString(p.pid())).start().waitFor(5, TimeUnit.SECONDS);
          }
        } catch (IOException | InterruptedException e) {
          // closing anyway
        }
        p.close();
      }
    }
  }
}
