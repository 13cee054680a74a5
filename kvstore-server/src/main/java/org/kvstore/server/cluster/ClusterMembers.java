package org.kvstore.server.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.InvalidArgumentException;

/**
 * The nodes of a cluster as the {@code cluster-nodes} setting lists them, in the cluster's order:
 * {@code id=host:port@raftport,...}, as Redis writes a node's address ({@code ip:port@cport}). The
 * port is the node's Redis protocol port, which clients are redirected to; the Raft port carries
 * the shards' replication between nodes.
 *
 * <pre>{@code n1=127.0.0.1:7001@17001,n2=127.0.0.1:7002@17002,n3=127.0.0.1:7003@17003}</pre>
 *
 * <p>Every node is given the same list, in the same order: the order fixes which shards each node
 * holds and prefers to lead.
 *
 * <p>Thread safety: immutable.
 *
 * @param members the nodes, in order
 */
public record ClusterMembers(List<Member> members) {
  /**
   * One node.
   *
   * @param id the node's name, letters, digits, '-' and '_'
   * @param host the host clients and the other nodes reach it at
   * @param port its Redis protocol port
   * @param raftPort its Raft port
   */
  public record Member(String id, String host, int port, int raftPort) {
    /** {@code host:port}, as {@code -MOVED} names it. */
    public String endpoint() {
      return host + ":" + port;
    }

    /** {@code host:raftport}, the node's Raft address. */
    public String raftAddress() {
      return host + ":" + raftPort;
    }

    @Override
    public String toString() {
      return id + "=" + host + ":" + port + "@" + raftPort;
    }
  }

  public ClusterMembers {
    members = List.copyOf(members);
  }

  /**
   * Parses the {@code cluster-nodes} setting.
   *
   * @throws InvalidArgumentException naming the entry that is malformed, a repeated id or address
   */
  public static ClusterMembers parse(String text) {
    List<Member> out = new ArrayList<>();
    Map<String, String> ids = new LinkedHashMap<>();
    Map<String, String> addresses = new LinkedHashMap<>();
    for (String raw : text.split(",")) {
      String entry = raw.trim();
      if (entry.isEmpty()) {
        continue;
      }
      Member m = parseEntry(entry);
      if (ids.put(m.id(), entry) != null) {
        throw bad("node id '" + m.id() + "' is listed twice");
      }
      for (String address : List.of(m.endpoint(), m.raftAddress())) {
        String before = addresses.put(address, m.id());
        if (before != null) {
          throw bad("address " + address + " is used twice (by " + before + " and " + m.id() + ")");
        }
      }
      out.add(m);
    }
    if (out.isEmpty()) {
      throw bad("must list at least one node as id=host:port@raftport");
    }
    return new ClusterMembers(out);
  }

  private static Member parseEntry(String entry) {
    int eq = entry.indexOf('=');
    int at = entry.lastIndexOf('@');
    int colon = at < 0 ? -1 : entry.lastIndexOf(':', at);
    if (eq <= 0 || at < 0 || colon <= eq + 1) {
      throw bad("'" + entry + "' is not id=host:port@raftport");
    }
    String id = entry.substring(0, eq);
    if (!id.matches("[A-Za-z0-9_-]{1,64}")) {
      throw bad("node id '" + id + "' in '" + entry + "' must be 1 to 64 letters, digits, '-' or '_'");
    }
    String host = entry.substring(eq + 1, colon);
    int port = port(entry, entry.substring(colon + 1, at), "port");
    int raftPort = port(entry, entry.substring(at + 1), "Raft port");
    if (port == raftPort) {
      throw bad("'" + entry + "' gives the same port to clients and to Raft");
    }
    return new Member(id, host, port, raftPort);
  }

  private static int port(String entry, String text, String what) {
    try {
      int p = Integer.parseInt(text);
      if (p >= 1 && p <= 65535) {
        return p;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw bad("the " + what + " '" + text + "' in '" + entry + "' is not a port from 1 to 65535");
  }

  private static InvalidArgumentException bad(String problem) {
    return new InvalidArgumentException("cluster-nodes", problem);
  }

  /** The node named {@code id}, or null. */
  public Member member(String id) {
    for (Member m : members) {
      if (m.id().equals(id)) {
        return m;
      }
    }
    return null;
  }

  /** Node id to Raft address, in order: the cluster layout's nodes. */
  public Map<String, String> raftAddresses() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Member m : members) {
      out.put(m.id(), m.raftAddress());
    }
    return out;
  }

  /** The setting's text, which {@link #parse} reads back. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (Member m : members) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(m);
    }
    return b.toString();
  }
}
