package org.kvstore.server.resp;

import static org.kvstore.server.resp.RespCommandSpec.CONNECTION;
import static org.kvstore.server.resp.RespCommandSpec.FAST;
import static org.kvstore.server.resp.RespCommandSpec.command;
import static org.kvstore.server.resp.RespConnectionCommands.arity;
import static org.kvstore.server.resp.RespConnectionCommands.str;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.kvstore.cluster.slots.HashSlot;
import org.kvstore.cluster.slots.SlotRange;
import org.kvstore.server.cluster.ClusterFrontEnd;
import org.kvstore.server.cluster.ClusterMembers;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.Keyspace;

/**
 * Redis Cluster's commands ({@code CLUSTER SLOTS|SHARDS|NODES|INFO|MYID|KEYSLOT|HELP},
 * {@code READONLY}, {@code READWRITE}, {@code ASKING}) with Redis' reply shapes, from
 * {@link ClusterFrontEnd}'s leader-only view (SCALEOUT.md §6.3): every node that serves slots is a
 * master, and each slot range lists only its serving node. On a single server they answer Redis'
 * {@code ERR This instance has cluster support disabled}.
 *
 * <p>Thread safety: stateless apart from the session it is given; thread-safe.
 */
final class RespClusterCommands {
  static final String DISABLED = "ERR This instance has cluster support disabled";

  private final Keyspace keyspace;

  RespClusterCommands(Keyspace keyspace) {
    this.keyspace = keyspace;
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("cluster", -2).flags(CONNECTION).doc("cluster", "A container for Redis Cluster commands.")
            .subcommands("slots", "shards", "nodes", "info", "myid", "keyslot", "help")
            .handler(this::cluster),
        command("readonly", 1).flags(CONNECTION | FAST).doc("cluster",
                "Lets the connection read slots this node does not lead (still linearizable reads).")
            .handler((s, r) -> {
              cluster();
              s.clusterReadOnly(true);
              return RespMessage.OK;
            }),
        command("readwrite", 1).flags(CONNECTION | FAST).doc("cluster", "Ends READONLY for the connection.")
            .handler((s, r) -> {
              cluster();
              s.clusterReadOnly(false);
              return RespMessage.OK;
            }),
        command("asking", 1).flags(CONNECTION | FAST).doc("cluster",
                "Accepted for clients that follow -ASK; slots never migrate in this version.")
            .handler((s, r) -> {
              cluster();
              return RespMessage.OK;
            }));
  }

  private ClusterFrontEnd cluster() {
    ClusterFrontEnd c = keyspace.cluster();
    if (c == null) {
      throw new CommandException(DISABLED);
    }
    return c;
  }

  private RespMessage cluster(RespSession s, RespRequest r) {
    ClusterFrontEnd c = cluster();
    String sub = str(r.arg(1)).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "slots" -> {
        arity(r, 2, "cluster|slots");
        return slots(c);
      }
      case "shards" -> {
        arity(r, 2, "cluster|shards");
        return shards(c);
      }
      case "nodes" -> {
        arity(r, 2, "cluster|nodes");
        return RespMessage.bulk(nodes(c));
      }
      case "info" -> {
        arity(r, 2, "cluster|info");
        return RespMessage.bulk(info(c));
      }
      case "myid" -> {
        arity(r, 2, "cluster|myid");
        return RespMessage.bulk(c.redisId(c.myId()));
      }
      case "keyslot" -> {
        arity(r, 3, "cluster|keyslot");
        return RespMessage.integer(HashSlot.of(r.arg(2)));
      }
      case "help" -> {
        arity(r, 2, "cluster|help");
        List<RespMessage> lines = new ArrayList<>();
        for (String line : List.of(
            "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "INFO", "    Return information about the cluster.",
            "KEYSLOT <key>", "    Return the hash slot for <key>.",
            "MYID", "    Return the node id.",
            "NODES", "    Return cluster configuration seen by node. Output format:",
            "    <id> <ip:port@cport> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
            "SHARDS", "    Return information about slot range mappings and the nodes serving them.",
            "SLOTS", "    Return information about slots range mappings.",
            "HELP", "    Print this help.")) {
          lines.add(new RespMessage.SimpleString(line));
        }
        return new RespMessage.ArrayReply(lines);
      }
      default -> throw new CommandException(
          "ERR unknown subcommand '" + str(r.arg(1)) + "'. Try CLUSTER HELP.");
    }
  }

  /** {@code [start, end, [ip, port, id]]} per shard, the serving node only. */
  private static RespMessage slots(ClusterFrontEnd c) {
    List<RespMessage> out = new ArrayList<>();
    for (ClusterFrontEnd.SlotOwner o : c.slotOwners()) {
      ClusterMembers.Member m = c.member(o.nodeId());
      out.add(new RespMessage.ArrayReply(List.of(
          RespMessage.integer(o.slots().first()),
          RespMessage.integer(o.slots().last()),
          new RespMessage.ArrayReply(List.of(
              RespMessage.bulk(m.host()), RespMessage.integer(m.port()), RespMessage.bulk(c.redisId(m.id())))))));
    }
    return new RespMessage.ArrayReply(out);
  }

  /** Redis 7's shape: per shard a map of {@code slots} and {@code nodes}, each node a map. */
  private static RespMessage shards(ClusterFrontEnd c) {
    List<RespMessage> out = new ArrayList<>();
    for (ClusterFrontEnd.SlotOwner o : c.slotOwners()) {
      ClusterMembers.Member m = c.member(o.nodeId());
      RespMessage node = map(
          "id", RespMessage.bulk(c.redisId(m.id())),
          "port", RespMessage.integer(m.port()),
          "ip", RespMessage.bulk(m.host()),
          "endpoint", RespMessage.bulk(m.host()),
          "role", RespMessage.bulk("master"),
          "replication-offset", RespMessage.integer(0),
          "health", RespMessage.bulk("online"));
      out.add(map(
          "slots", new RespMessage.ArrayReply(List.of(
              RespMessage.integer(o.slots().first()), RespMessage.integer(o.slots().last()))),
          "nodes", new RespMessage.ArrayReply(List.of(node))));
    }
    return new RespMessage.ArrayReply(out);
  }

  private static RespMessage map(Object... keysAndValues) {
    List<RespMessage> keys = new ArrayList<>();
    List<RespMessage> values = new ArrayList<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      keys.add(RespMessage.bulk((String) keysAndValues[i]));
      values.add((RespMessage) keysAndValues[i + 1]);
    }
    return new RespMessage.MapReply(keys, values);
  }

  /** One line per node, Redis' format; every node is a master, listing the slots it serves. */
  static String nodes(ClusterFrontEnd c) {
    long epoch = c.currentEpoch();
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, List<SlotRange>> e : c.slotsByNode().entrySet()) {
      ClusterMembers.Member m = c.member(e.getKey());
      b.append(c.redisId(m.id())).append(' ')
          .append(m.host()).append(':').append(m.port()).append('@').append(m.raftPort())
          .append(' ').append(m.id().equals(c.myId()) ? "myself,master" : "master")
          .append(" - 0 0 ").append(epoch).append(" connected");
      for (SlotRange range : e.getValue()) {
        b.append(' ').append(range.first());
        if (range.last() != range.first()) {
          b.append('-').append(range.last());
        }
      }
      b.append('\n');
    }
    return b.toString();
  }

  private static String info(ClusterFrontEnd c) {
    long epoch = c.currentEpoch();
    int serving = 0;
    for (List<SlotRange> ranges : c.slotsByNode().values()) {
      if (!ranges.isEmpty()) {
        serving++;
      }
    }
    return "cluster_state:" + (c.allShardsLed() ? "ok" : "fail") + "\r\n"
        + "cluster_slots_assigned:" + HashSlot.COUNT + "\r\n"
        + "cluster_slots_ok:" + HashSlot.COUNT + "\r\n"
        + "cluster_slots_pfail:0\r\n"
        + "cluster_slots_fail:0\r\n"
        + "cluster_known_nodes:" + c.members().members().size() + "\r\n"
        + "cluster_size:" + serving + "\r\n"
        + "cluster_current_epoch:" + epoch + "\r\n"
        + "cluster_my_epoch:" + epoch + "\r\n"
        + "cluster_stats_messages_sent:0\r\n"
        + "cluster_stats_messages_received:0\r\n"
        + "total_cluster_links_buffer_limit_exceeded:0\r\n";
  }
}
