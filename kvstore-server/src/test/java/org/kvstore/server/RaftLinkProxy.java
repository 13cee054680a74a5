package org.kvstore.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A user-space TCP proxy in front of each cluster node's Raft port, which can cut the links between
 * chosen nodes: the network partitions of the fault tests (SCALEOUT.md §7), on loopback, without
 * privileges.
 *
 * <p>Every node listens on its own Raft port and is known to the others by its proxy's port (the
 * {@code raftport} in {@code --cluster-nodes}; the node itself gets {@code --cluster-raft-listen}).
 * A link is cut in both directions: a connection from a node to another's proxy is refused (closed
 * at once) while the pair is cut, and the connections already open between them are closed when it
 * is cut. The proxy tells which node connects by the connecting socket's owner: it finds the
 * client's port in {@code /proc/net/tcp6} (or {@code tcp}), and the socket's inode among the
 * nodes' open files ({@code /proc/<pid>/fd}), so it works for gRPC's connections, which come from
 * ephemeral ports of one loopback address. A connection whose process is already gone (killed
 * between its connect and the proxy's accept, or being killed: its descriptors go before its
 * sockets close) is closed; one of a live process whose owner cannot be found counts in
 * {@link #unidentified()} and is refused while any cut touches its destination.
 *
 * <p>Thread safety: thread-safe; one accept thread per proxy and two copy threads per connection.
 */
final class RaftLinkProxy implements AutoCloseable {
  /** One proxied connection: from node {@code from} (or null) to node {@code to}. */
  private record Link(String from, String to, Socket client, Socket server) {
    void close() {
      closeQuietly(client);
      closeQuietly(server);
    }
  }

  private final Map<String, Integer> targets;
  private final Function<String, Long> pidOf;
  private final Map<String, ServerSocket> listeners = new ConcurrentHashMap<>();
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  /** Unordered pairs "a|b" (a < b) whose links are cut. */
  private final Set<String> cut = ConcurrentHashMap.newKeySet();
  private final AtomicLong unidentified = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private volatile boolean closed;

  /**
   * @param targets each node's real Raft port on 127.0.0.1
   * @param pidOf the pid of a node's process now (or null when it is down)
   */
  RaftLinkProxy(Map<String, Integer> targets, Function<String, Long> pidOf) throws IOException {
    this.targets = Map.copyOf(targets);
    this.pidOf = pidOf;
    for (String id : targets.keySet()) {
      ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      listeners.put(id, s);
      Thread t = new Thread(() -> acceptLoop(id, s), "raft-proxy-" + id);
      t.setDaemon(true);
      t.start();
    }
  }

  /** The port the others reach node {@code id}'s Raft server at. */
  int port(String id) {
    return listeners.get(id).getLocalPort();
  }

  /** Cuts every link between {@code id} and the other nodes, both ways. */
  void isolate(String id) {
    for (String other : targets.keySet()) {
      if (!other.equals(id)) {
        cut.add(pair(id, other));
      }
    }
    for (Link l : links) {
      if (id.equals(l.from()) || id.equals(l.to()) || l.from() == null) {
        l.close();
      }
    }
  }

  /** Restores every link. */
  void heal() {
    cut.clear();
  }

  /** Connections whose connecting node could not be told. */
  long unidentified() {
    return unidentified.get();
  }

  /** Connections refused because their link was cut. */
  long refused() {
    return refused.get();
  }

  private static String pair(String a, String b) {
    return a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a;
  }

  private boolean isCut(String from, String to) {
    if (from == null) {
      return cut.stream().anyMatch(p -> p.startsWith(to + "|") || p.endsWith("|" + to));
    }
    return cut.contains(pair(from, to));
  }

  private void acceptLoop(String to, ServerSocket listener) {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      Owner owner = identify(client.getPort(), listener.getLocalPort());
      String from = owner.node();
      if (owner.gone()) {
        // The connecting process is gone (a node killed after it connected, before the accept):
        // its socket is closed or orphaned, and there is nothing to forward.
        closeQuietly(client);
        continue;
      }
      if (from == null) {
        unidentified.incrementAndGet();
      }
      if (isCut(from, to)) {
        refused.incrementAndGet();
        closeQuietly(client);
        continue;
      }
      Socket server;
      try {
        server = new Socket();
        server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targets.get(to)), 5000);
        server.setTcpNoDelay(true);
        client.setTcpNoDelay(true);
      } catch (IOException e) {
        closeQuietly(client); // the node is down: as if the port were closed
        continue;
      }
      Link link = new Link(from, to, client, server);
      links.add(link);
      pump(link, client, server, "up");
      pump(link, server, client, "down");
    }
  }

  private void pump(Link link, Socket in, Socket out, String direction) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[64 * 1024];
      try (InputStream is = in.getInputStream(); OutputStream os = out.getOutputStream()) {
        int n;
        while ((n = is.read(buf)) >= 0) {
          os.write(buf, 0, n);
        }
      } catch (IOException e) {
        // a side closed, or the link was cut
      } finally {
        link.close();
        links.remove(link);
      }
    }, "raft-proxy-" + link.from() + "-" + link.to() + "-" + direction);
    t.setDaemon(true);
    t.start();
  }

  /** Who holds a connecting socket: a node, nobody found ({@code node} null), or nobody any more. */
  private record Owner(String node, boolean gone) {}

  /**
   * The node that holds the connecting end (local port {@code clientPort}, remote port
   * {@code proxyPort}); gone when that socket is no longer established; no node when a live
   * socket's owner cannot be found. A process being killed has its descriptor table dropped
   * before its sockets close, so for a moment a socket is established and no process holds it:
   * the owner is looked for again, for up to a second, until it is found or the socket closes.
   */
  private Owner identify(int clientPort, int proxyPort) {
    for (int attempt = 0; attempt < 20; attempt++) {
      String inode = socketInode(clientPort, proxyPort);
      if (inode == null) {
        return new Owner(null, true);
      }
      String node = ownerOf(inode);
      if (node != null) {
        return new Owner(node, false);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return new Owner(null, false);
  }

  /** The node whose process holds the socket {@code inode}, or null. */
  private String ownerOf(String inode) {
    String wanted = "socket:[" + inode + "]";
    for (String id : targets.keySet()) {
      Long pid = pidOf.apply(id);
      if (pid == null) {
        continue;
      }
      try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", pid.toString(), "fd"))) {
        for (Path fd : fds) {
          try {
            if (Files.readSymbolicLink(fd).toString().equals(wanted)) {
              return id;
            }
          } catch (IOException closedMeanwhile) {
            // the descriptor went away while listing
          }
        }
      } catch (IOException processGone) {
        // the node exited
      }
    }
    return null;
  }

  /**
   * The inode of the established socket with local port {@code localPort} and remote port
   * {@code remotePort}; null when there is none, or when its process is gone (the kernel keeps a
   * dead process' socket a while, closing, with inode 0).
   */
  private static String socketInode(int localPort, int remotePort) {
    String local = String.format(Locale.ROOT, ":%04X", localPort);
    String remote = String.format(Locale.ROOT, ":%04X", remotePort);
    for (String table : List.of("/proc/net/tcp6", "/proc/net/tcp")) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(table));
      } catch (IOException e) {
        continue;
      }
      for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 9 && f[1].endsWith(local) && f[2].endsWith(remote)) {
          return f[3].equals("01") && !f[9].equals("0") ? f[9] : null;
        }
      }
    }
    return null;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    closed = true;
    for (ServerSocket s : listeners.values()) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    for (Link l : new ArrayList<>(links)) {
      l.close();
    }
  }
}
