package org.kvstore.server.resp;

import static org.kvstore.server.resp.RespCommandSpec.ADMIN;
import static org.kvstore.server.resp.RespCommandSpec.FAST;
import static org.kvstore.server.resp.RespCommandSpec.NO_MULTI;
import static org.kvstore.server.resp.RespCommandSpec.READONLY;
import static org.kvstore.server.resp.RespCommandSpec.SLOW;
import static org.kvstore.server.resp.RespCommandSpec.WRITE;
import static org.kvstore.server.resp.RespCommandSpec.command;
import static org.kvstore.server.resp.RespConnectionCommands.str;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.kvstore.Cursor;
import org.kvstore.Durability;
import org.kvstore.ExpiryStats;
import org.kvstore.DiskSpaceStatus;
import org.kvstore.KVStoreException;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.GlobPattern;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.KeyspaceStats;
import org.kvstore.server.command.RedisNumbers;
import org.kvstore.server.command.ProcessCpuTimes;
import org.kvstore.server.command.PutWriter;
import org.kvstore.server.command.ServerSettings;
import org.kvstore.server.output.OutputLimits;

/**
 * Server commands: COMMAND (COUNT, INFO, DOCS, LIST), INFO, CONFIG GET/SET/RESETSTAT, DBSIZE,
 * FLUSHDB, FLUSHALL and TIME.
 *
 * <p>Thread safety: thread-safe.
 */
final class RespServerCommands {
  private static final int DELETE_CHUNK = 1024;

  private final Keyspace keyspace;
  private final ServerSettings settings;
  private final ClientRegistry clients;
  private final PutWriter writer;
  private final Supplier<Map<String, RespCommandSpec>> commands;
  private final Supplier<RespCommandStats> stats;
  private final OutputLimits outputLimits;

  RespServerCommands(
      Keyspace keyspace, ServerSettings settings, ClientRegistry clients, PutWriter writer,
      Supplier<Map<String, RespCommandSpec>> commands, Supplier<RespCommandStats> stats,
      OutputLimits outputLimits) {
    this.stats = stats;
    this.outputLimits = outputLimits;
    this.writer = writer;
    this.keyspace = keyspace;
    this.settings = settings;
    this.clients = clients;
    this.commands = commands;
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("command", -1).flags(SLOW).doc("server", "Returns detailed information about all commands.")
            .subcommands("count", "info", "docs", "list")
            .handler(this::commandCommand),
        command("info", -1).flags(SLOW).doc("server", "Returns information and statistics about the server.")
            .handler(this::info),
        command("config", -2).flags(ADMIN).doc("server", "A container for server configuration commands.")
            .subcommands("get", "set", "resetstat")
            .handler(this::config),
        command("dbsize", 1).flags(READONLY | SLOW).doc("server", "Returns the number of keys in the database (a scan).")
            .handler((s, r) -> RespMessage.integer(count(s.table(keyspace)))),
        command("flushdb", -1).flags(WRITE | SLOW | NO_MULTI).doc("server", "Removes all keys from the current table.")
            .handler(this::flushdb),
        command("flushall", -1).flags(WRITE | SLOW | NO_MULTI).doc("server", "Removes all keys from every table of database 'default'.")
            .handler(this::flushall),
        command("time", 1).flags(FAST).doc("server", "Returns the server time.")
            .handler((s, r) -> {
              java.time.Instant now = java.time.Instant.now();
              return new RespMessage.ArrayReply(List.of(
                  RespMessage.bulk(Long.toString(now.getEpochSecond())),
                  RespMessage.bulk(Long.toString(now.getNano() / 1000))));
            }));
  }

  // ---- COMMAND ----

  private RespMessage commandCommand(RespSession s, RespRequest r) {
    Map<String, RespCommandSpec> all = commands.get();
    if (r.size() == 1) {
      return new RespMessage.ArrayReply(all.values().stream().map(this::commandInfo).toList());
    }
    String sub = str(r.arg(1)).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "count" -> {
        RespConnectionCommands.arity(r, 2, "command|count");
        return RespMessage.integer(all.size());
      }
      case "info" -> {
        if (r.size() == 2) {
          return new RespMessage.ArrayReply(all.values().stream().map(this::commandInfo).toList());
        }
        List<RespMessage> out = new ArrayList<>();
        for (int i = 2; i < r.size(); i++) {
          RespCommandSpec spec = all.get(str(r.arg(i)).toLowerCase(Locale.ROOT));
          out.add(spec == null ? RespMessage.NULL : commandInfo(spec));
        }
        return new RespMessage.ArrayReply(out);
      }
      case "docs" -> {
        List<RespMessage> names = new ArrayList<>();
        List<RespMessage> docs = new ArrayList<>();
        if (r.size() == 2) {
          for (RespCommandSpec spec : all.values()) {
            names.add(RespMessage.bulk(spec.name()));
            docs.add(commandDocs(spec));
          }
        } else {
          for (int i = 2; i < r.size(); i++) {
            RespCommandSpec spec = all.get(str(r.arg(i)).toLowerCase(Locale.ROOT));
            if (spec != null) {
              names.add(RespMessage.bulk(spec.name()));
              docs.add(commandDocs(spec));
            }
          }
        }
        return new RespMessage.MapReply(names, docs);
      }
      case "list" -> {
        return new RespMessage.ArrayReply(all.keySet().stream().map(RespMessage::bulk).toList());
      }
      default -> throw new CommandException(
          "ERR unknown subcommand '" + str(r.arg(1)) + "'. Try COMMAND HELP.");
    }
  }

  /** Redis 7's 10-element COMMAND INFO entry. */
  private RespMessage commandInfo(RespCommandSpec spec) {
    return new RespMessage.ArrayReply(List.of(
        RespMessage.bulk(spec.name()),
        RespMessage.integer(spec.arity()),
        new RespMessage.ArrayReply(spec.flagNames().stream()
            .map(f -> (RespMessage) new RespMessage.SimpleString(f)).toList()),
        RespMessage.integer(spec.firstKey()),
        RespMessage.integer(spec.lastKey()),
        RespMessage.integer(spec.step()),
        RespMessage.EMPTY_ARRAY,
        RespMessage.EMPTY_ARRAY,
        RespMessage.EMPTY_ARRAY,
        RespMessage.EMPTY_ARRAY));
  }

  /** Docs without "arguments" (redis-cli accepts that). */
  private RespMessage commandDocs(RespCommandSpec spec) {
    return new RespMessage.MapReply(
        List.of(RespMessage.bulk("summary"), RespMessage.bulk("since"), RespMessage.bulk("group")),
        List.of(RespMessage.bulk(spec.summary()), RespMessage.bulk("1.0.0"), RespMessage.bulk(spec.group())));
  }

  // ---- INFO ----

  /**
   * The full-disk state: whether writes are refused for lack of space and since when, the last
   * such error, and the resumes (Redis' {@code aof_last_write_status} says err while it is full).
   */
  private String diskSpaceSection() {
    DiskSpaceStatus s = keyspace.store().diskSpace();
    long now = System.currentTimeMillis();
    String error = s.lastError().replace('\r', ' ').replace('\n', ' ');
    return "aof_last_write_status:" + (s.full() ? "err" : "ok") + "\r\n"
        + "disk_full:" + (s.full() ? 1 : 0) + "\r\n"
        + "disk_full_since_seconds:" + (s.full() ? (now - s.fullSinceMillis()) / 1000 : 0) + "\r\n"
        + "disk_full_last_error:" + error + "\r\n"
        + "disk_full_resumes:" + s.resumes() + "\r\n"
        + "disk_full_last_resume_seconds_ago:"
        + (s.lastResumeMillis() == 0 ? -1 : (now - s.lastResumeMillis()) / 1000) + "\r\n";
  }

  /**
   * The JVM's direct buffers in bytes: the LSM block cache's regions (blocks and rows are kept
   * outside the heap) and the file layer's I/O buffers; Netty's pooled buffers are not among them.
   */
  private static long directMemoryUsed() {
    long n = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        n += pool.getMemoryUsed();
      }
    }
    return n;
  }

  private RespMessage info(RespSession s, RespRequest r) {
    Map<String, String> sections = new LinkedHashMap<>();
    sections.put("server", serverSection());
    sections.put("clients", "connected_clients:" + clients.connected() + "\r\n"
        + "blocked_clients:0\r\n" // no blocking commands; redis-cli --stat shows the field
        + "maxclients:" + settings.maxClients() + "\r\n"
        + "rejected_connections:" + clients.rejectedConnections() + "\r\n");
    Runtime rt = Runtime.getRuntime();
    long used = rt.totalMemory() - rt.freeMemory();
    sections.put("memory", "used_memory:" + used + "\r\n" + "used_memory_human:" + (used >> 20) + "M\r\n"
        + "maxmemory:" + rt.maxMemory() + "\r\n" + "maxmemory_policy:noeviction\r\n"
        + "used_memory_direct:" + directMemoryUsed() + "\r\n");
    Durability d = settings.durability();
    // No child processes: the log is written and checkpointed in place, never rewritten by a fork.
    sections.put("persistence", "loading:0\r\n"
        + "rdb_bgsave_in_progress:0\r\n"
        + "aof_rewrite_in_progress:0\r\n"
        + "aof_enabled:" + (d == Durability.NONE ? 0 : 1) + "\r\n"
        + "kvstore_durability:" + d.name().toLowerCase(Locale.ROOT) + "\r\n"
        + diskSpaceSection());
    sections.put("stats", "total_connections_received:" + clients.totalConnections() + "\r\n"
        + "total_commands_processed:" + clients.totalCommands() + "\r\n"
        + "rejected_connections:" + clients.rejectedConnections() + "\r\n"
        + "total_error_replies:" + stats.get().totalErrorReplies() + "\r\n"
        // Redis' name; it counts the connections of every protocol closed by OutputLimits.
        + "client_output_buffer_limit_disconnections:" + outputLimits.disconnections() + "\r\n"
        // Plain SETs and the store writes that carried them: fewer writes than SETs means the
        // SETs of concurrent or pipelining clients were grouped (WriteCoalescer).
        + "kvstore_set_writes:" + writer.batches() + "\r\n"
        + "kvstore_sets_written:" + writer.puts() + "\r\n"
        + expirySection());
    sections.put("replication", "role:master\r\nconnected_slaves:0\r\nmaster_repl_offset:0\r\n");
    sections.put("cpu", cpuSection());
    sections.put("cluster", keyspace.cluster() == null ? "cluster_enabled:0\r\n" : keyspace.cluster().infoSection());
    sections.put("commandstats", stats.get().commandStats());
    sections.put("errorstats", stats.get().errorStats());

    List<String> wanted = new ArrayList<>();
    for (int i = 1; i < r.size(); i++) {
      wanted.add(str(r.arg(i)).toLowerCase(Locale.ROOT));
    }
    boolean all = wanted.contains("all") || wanted.contains("everything");
    boolean defaults = all || wanted.isEmpty() || wanted.contains("default");
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : sections.entrySet()) {
      // As in Redis, commandstats is only shown when asked for (or with all/everything).
      boolean isDefault = !e.getKey().equals("commandstats");
      if (all || (defaults && isDefault) || wanted.contains(e.getKey())) {
        if (sb.length() > 0) {
          sb.append("\r\n");
        }
        String title = e.getKey().equals("cpu") ? "CPU"
            : Character.toUpperCase(e.getKey().charAt(0)) + e.getKey().substring(1);
        sb.append("# ").append(title).append("\r\n").append(e.getValue());
      }
    }
    // Last, as in Redis, and computed only when asked for: it reads the tables (KeyspaceStats).
    if (defaults || wanted.contains("keyspace")) {
      if (sb.length() > 0) {
        sb.append("\r\n");
      }
      sb.append("# Keyspace\r\n").append(keyspaceSection());
    }
    return new RespMessage.BulkString(sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  private String serverSection() {
    long uptime = (System.currentTimeMillis() - settings.startMillis()) / 1000;
    return "redis_version:" + RespConnectionCommands.REDIS_VERSION + "\r\n"
        + "redis_mode:standalone\r\n"
        + "server_name:kvstore\r\n"
        + "kvstore_version:" + settings.version() + "\r\n"
        + "os:" + System.getProperty("os.name") + " " + System.getProperty("os.arch") + "\r\n"
        + "arch_bits:64\r\n"
        + "process_id:" + ProcessHandle.current().pid() + "\r\n"
        + "run_id:" + runId() + "\r\n"
        + "tcp_port:" + settings.respPort() + "\r\n"
        + "uptime_in_seconds:" + uptime + "\r\n"
        + "uptime_in_days:" + uptime / 86400 + "\r\n"
        + "executable:" + ManagementFactory.getRuntimeMXBean().getVmName() + "\r\n"
        + "config_file:\r\n"
        + "kvstore_data_dir:" + settings.dataDir() + "\r\n"
        + "kvstore_default_engine:" + keyspace.defaultEngine() + "\r\n"
        + "kvstore_engines:" + String.join(",", keyspace.store().engines()) + "\r\n";
  }

  /** Redis's two fields when the platform splits user and system time, and the total always. */
  private static String cpuSection() {
    StringBuilder sb = new StringBuilder();
    ProcessCpuTimes.split().ifPresent(t -> sb
        .append("used_cpu_sys:").append(String.format(Locale.ROOT, "%.6f", t.systemSeconds())).append("\r\n")
        .append("used_cpu_user:").append(String.format(Locale.ROOT, "%.6f", t.userSeconds())).append("\r\n"));
    double total = ProcessCpuTimes.totalSeconds();
    if (total >= 0) {
      sb.append("kvstore_used_cpu_total:").append(String.format(Locale.ROOT, "%.6f", total)).append("\r\n");
    }
    return sb.toString();
  }

  private String runId() {
    String base = Long.toHexString(settings.startMillis()) + Long.toHexString(ProcessHandle.current().pid());
    StringBuilder sb = new StringBuilder(base);
    while (sb.length() < 40) {
      sb.append('0');
    }
    return sb.substring(0, 40);
  }

  /**
   * Redis' expiry fields of {@code INFO stats}, from the store's active expiry (on a cluster node
   * plus the node's expiry of the shards it leads, {@link org.kvstore.cluster.ClusterNode#expiryStats}):
   * the expired entries it removed, the share of expired ones among the entries its passes examined
   * (cumulative, where Redis keeps a moving average of its samples), and the CPU time of its passes.
   */
  private String expirySection() {
    ExpiryStats e = keyspace.store().expiryStats();
    if (keyspace.cluster() != null) {
      ExpiryStats shards = keyspace.cluster().node().expiryStats();
      e = new ExpiryStats(e.examined() + shards.examined(), e.removed() + shards.removed(),
          e.passes() + shards.passes(), e.busyNanos() + shards.busyNanos());
    }
    double stalePercent = e.examined() == 0 ? 0 : 100.0 * e.removed() / e.examined();
    return "expired_keys:" + e.removed() + "\r\n"
        + "expired_stale_perc:" + String.format(Locale.ROOT, "%.2f", stalePercent) + "\r\n"
        + "expire_cycle_cpu_milliseconds:" + e.busyNanos() / 1_000_000 + "\r\n";
  }

  /** One line per non-empty index table: see {@link KeyspaceStats} for what is exact. */
  private String keyspaceSection() {
    StringBuilder sb = new StringBuilder();
    long now = keyspace.store().options().clock().millis();
    try {
      for (Map.Entry<Integer, Table> e : keyspace.existingIndexTables().entrySet()) {
        KeyspaceStats k = KeyspaceStats.of(e.getValue(), now);
        if (k.keys() > 0) {
          sb.append("db").append(e.getKey()).append(":keys=").append(k.keys())
              .append(",expires=").append(k.expires()).append(",avg_ttl=").append(k.avgTtlMillis())
              .append("\r\n");
        }
      }
    } catch (KVStoreException e) {
      // an INFO reply must not fail because a table is being dropped
    }
    return sb.toString();
  }

  // ---- CONFIG ----

  private Map<String, String> configValues() {
    Map<String, String> m = new LinkedHashMap<>();
    Durability d = settings.durability();
    m.put("save", "");
    m.put("appendonly", d == Durability.NONE ? "no" : "yes");
    m.put("appendfsync", switch (d) {
      case SYNC -> "always";
      case PERIODIC -> "everysec";
      case NONE -> "no";
    });
    m.put("databases", Integer.toString(keyspace.databases()));
    m.put("maxmemory", "0");
    m.put("timeout", "0");
    m.put("port", Integer.toString(settings.respPort()));
    m.put("bind", settings.bind());
    m.put("requirepass", "");
    m.put("proto-max-bulk-len", Long.toString(settings.maxBulkBytes()));
    m.put("maxclients", Integer.toString(settings.maxClients()));
    m.put("dir", settings.dataDir().toString());
    return m;
  }

  private RespMessage config(RespSession s, RespRequest r) {
    String sub = str(r.arg(1)).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "get" -> {
        if (r.size() < 3) {
          throw new CommandException("ERR wrong number of arguments for 'config|get' command");
        }
        Map<String, String> values = configValues();
        List<RespMessage> keys = new ArrayList<>();
        List<RespMessage> vals = new ArrayList<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
          for (int i = 2; i < r.size(); i++) {
            GlobPattern p = GlobPattern.compile(str(r.arg(i)).toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
            if (p.matches(e.getKey().getBytes(StandardCharsets.UTF_8))) {
              keys.add(RespMessage.bulk(e.getKey()));
              vals.add(RespMessage.bulk(e.getValue()));
              break;
            }
          }
        }
        return new RespMessage.MapReply(keys, vals);
      }
      case "set" -> {
        if (r.size() < 4 || r.size() % 2 != 0) {
          throw new CommandException("ERR wrong number of arguments for 'config|set' command");
        }
        for (int i = 2; i < r.size(); i += 2) {
          configSet(str(r.arg(i)).toLowerCase(Locale.ROOT), str(r.arg(i + 1)));
        }
        return RespMessage.OK;
      }
      case "resetstat" -> {
        if (r.size() != 2) {
          throw new CommandException("ERR wrong number of arguments for 'config|resetstat' command");
        }
        stats.get().reset();
        clients.resetStats();
        return RespMessage.OK;
      }
      case "rewrite" -> throw new CommandException(
          "ERR unknown subcommand '" + str(r.arg(1)) + "'. Try CONFIG HELP.");
      default -> throw new CommandException(
          "ERR unknown subcommand '" + str(r.arg(1)) + "'. Try CONFIG HELP.");
    }
  }

  private void configSet(String name, String value) {
    switch (name) {
      case "requirepass" -> settings.setPassword(value);
      case "maxclients" -> {
        int n = RedisNumbers.parseInt(value.getBytes(StandardCharsets.UTF_8));
        if (n < 1) {
          throw new CommandException("ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 2147483647 inclusive");
        }
        settings.maxClients(n);
      }
      case "proto-max-bulk-len" -> {
        long n = RedisNumbers.parseLong(value.getBytes(StandardCharsets.UTF_8));
        if (n < 1024 * 1024 || n > Integer.MAX_VALUE - 16) {
          throw new CommandException("ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be between 1048576 and 2147483631 inclusive");
        }
        settings.maxBulkBytes(n);
      }
      default -> {
        if (configValues().containsKey(name)) {
          throw new CommandException("ERR CONFIG SET failed (possibly related to argument '" + name
              + "') - can't set immutable config");
        }
        throw new CommandException(
            "ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'");
      }
    }
  }

  // ---- keyspace-wide ----

  /** Exact number of keys in {@code t}: a scan (O(keys)). */
  static long count(Table t) {
    long n = 0;
    try (Cursor c = t.scan(null, null, 0)) {
      while (c.next()) {
        n++;
      }
    }
    return n;
  }

  private RespMessage flushdb(RespSession s, RespRequest r) {
    checkFlushMode(r);
    clear(s.table(keyspace));
    return RespMessage.OK;
  }

  private RespMessage flushall(RespSession s, RespRequest r) {
    checkFlushMode(r);
    if (keyspace.cluster() != null) {
      clear(keyspace.cluster().table()); // the keys of the shards this node leads, as in Redis Cluster
      return RespMessage.OK;
    }
    for (String name : keyspace.store().listTables(Keyspace.DEFAULT_DB)) {
      clear(keyspace.table(Keyspace.DEFAULT_DB, name));
    }
    return RespMessage.OK;
  }

  private static void checkFlushMode(RespRequest r) {
    if (r.size() > 2) {
      throw new CommandException(CommandException.SYNTAX);
    }
    if (r.size() == 2) {
      String mode = str(r.arg(1)).toLowerCase(Locale.ROOT);
      if (!mode.equals("sync") && !mode.equals("async")) {
        throw new CommandException(CommandException.SYNTAX);
      }
    }
  }

  /** Removes every key present when it starts, in chunks (one pass: it ends even under writes). */
  static void clear(Table t) {
    byte[] from = null;
    while (true) {
      List<byte[]> keys = new ArrayList<>(DELETE_CHUNK);
      try (Cursor c = t.scan(from, null, DELETE_CHUNK)) {
        while (c.next()) {
          keys.add(c.key());
        }
      }
      if (keys.isEmpty()) {
        return;
      }
      if (t instanceof org.kvstore.cluster.ShardedTable sharded) {
        sharded.removeEach(keys); // a batch may not span shards
      } else {
        WriteBatch batch = new WriteBatch();
        for (byte[] k : keys) {
          batch.remove(k);
        }
        t.write(batch);
      }
      if (keys.size() < DELETE_CHUNK) {
        return;
      }
      byte[] last = keys.get(keys.size() - 1);
      from = java.util.Arrays.copyOf(last, last.length + 1); // the smallest key after `last`
    }
  }
}
