package org.kvstore.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.kvstore.Durability;
import org.kvstore.InvalidArgumentException;
import org.kvstore.StoreOptions;

/**
 * The server's configuration, validated once. Every setting is declared once, in {@link #SETTINGS}
 * (see {@link Setting}): the flag ({@code --resp-port}), the key in a configuration file
 * ({@code resp-port: 6380} in YAML, {@code resp-port=6380} in a .properties file), validation and
 * {@code --help} all come from that declaration. Precedence: defaults, then the file, then flags.
 * An unknown key is an error, so a typo cannot silently leave a default in place.
 *
 * <p>Thread safety: immutable.
 */
public final class ServerConfig {
  private static final List<String> LOG_LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");
  private static final long MB = 1024 * 1024;

  /** The store's directory. */
  public static final Setting<Path> DATA_DIR = Setting.of("data-dir", "DIR", Path.of("data"),
      "data directory, created when missing", Path::of, Path::toString,
      p -> p.toString().isEmpty() ? "must not be empty" : null);
  /** The address every protocol listens on. */
  public static final Setting<String> BIND = Setting.text("bind", "ADDR", "127.0.0.1",
      "listen address of every protocol", s -> s.isBlank() ? "must not be empty" : null);
  /** Redis protocol port: 0 any free port, -1 off. */
  public static final Setting<Integer> RESP_PORT = port("resp-port", 6379,
      "Redis protocol port; 0 = any free port, -1 = off");
  /** HTTP REST port (docs/http.md): 0 any, -1 off. */
  public static final Setting<Integer> HTTP_PORT = port("http-port", 8080, "HTTP REST port; 0 = any free port, -1 = off");
  /** Thrift port (framed or not, binary or compact, on the one port): 0 any, -1 off. */
  public static final Setting<Integer> THRIFT_PORT = port("thrift-port", 9090,
      "Thrift port (framed or unframed, binary or compact); 0 = any free port, -1 = off");
  /** Engine of tables created by SELECT, or null (auto): lsm, else bplus, else memory. */
  public static final Setting<String> DEFAULT_ENGINE = Setting.of("default-engine", "ENGINE", null, "auto",
      "engine of new tables: lsm, bplus or memory; auto = lsm, else bplus, else memory",
      s -> s.isEmpty() || s.equalsIgnoreCase("auto") ? null : Setting.lower(s), s -> s, Setting.any());
  /** Default durability of durable tables. */
  public static final Setting<Durability> DURABILITY = Setting.of("durability", "MODE", Durability.SYNC,
      "default durability of durable tables: sync, periodic or none", Durability::parse,
      d -> Setting.lower(d.name()), Setting.any());
  /** The password clients must give with AUTH / HELLO AUTH, or null for none. */
  public static final Setting<String> PASSWORD = Setting.secret("password", "PASSWORD",
      "require AUTH with this password");
  /** The origin browsers may call the HTTP API from (CORS), {@code *} for any, or null: CORS off. */
  public static final Setting<String> HTTP_CORS_ORIGIN = Setting.of("http-cors-origin", "ORIGIN", null, "none",
      "origin allowed to call the HTTP API from a browser (CORS), e.g. https://app.example.com, or *",
      s -> s.isEmpty() ? null : s, s -> s, s -> s == null || !s.isBlank() ? null : "must not be blank");
  /** Root log level. */
  public static final Setting<String> LOG_LEVEL = Setting.of("log-level", "LEVEL", "info",
      "root log level: " + String.join(", ", LOG_LEVELS), Setting::lower, s -> s,
      s -> LOG_LEVELS.contains(Setting.lower(s)) ? null : "must be one of " + String.join(", ", LOG_LEVELS));
  /** Largest bulk string (value, key, argument) in a request. */
  public static final Setting<Long> PROTO_MAX_BULK_LEN = Setting.size("proto-max-bulk-len", "BYTES", 512 * MB,
      "largest bulk string in a request", Setting.sizeRange(1024, Integer.MAX_VALUE - 16));
  /** Most arguments in one request. */
  public static final Setting<Integer> PROTO_MAX_MULTIBULK_LEN = Setting.integer("proto-max-multibulk-len", "N",
      1024 * 1024, 16, 64 * 1024 * 1024, "most arguments in a request");
  /** Number of indexes SELECT accepts. */
  public static final Setting<Integer> DATABASES = Setting.integer("databases", "N", 16, 1, 1_000_000,
      "indexes SELECT accepts");
  /** Most simultaneous client connections. */
  public static final Setting<Integer> MAX_CLIENTS = Setting.integer("maxclients", "N", 10_000, 1, Integer.MAX_VALUE,
      "most client connections");
  /** Threads that run commands which may block (sync writes, scans). */
  public static final Setting<Integer> WORKER_THREADS = Setting.integer("worker-threads", "N", 256, 1, 4096,
      "threads for commands that may block");
  /** Netty event-loop threads (0: half the cores, at least one; see {@link #eventLoops}). */
  public static final Setting<Integer> IO_THREADS = Setting.integer("io-threads", "N", 0, 0, 1024,
      "network event-loop threads; 0 = half the cores, at least one");
  /**
   * Helper threads for the runs of quick reads of pipelining connections (-1, shown as auto: the
   * cores the event loops leave; 0: none; see {@link #readHelpers}).
   */
  public static final Setting<Integer> READ_THREADS = Setting.of("read-threads", "N", -1, "auto",
      "threads that run the pipelined reads of a connection beside the event loops; 0 = none,"
          + " auto = the cores the event loops leave",
      s -> s.equalsIgnoreCase("auto") ? -1 : explicitReadThreads(s), n -> n == -1 ? "auto" : Integer.toString(n),
      n -> n >= -1 && n <= 1024 ? null : "must be 'auto' or from 0 to 1024");
  /**
   * How long an idle event loop polls for ready connections, yielding the CPU between polls, before
   * it blocks (0: block at once); see {@link SpinThenBlockSelectStrategy}.
   */
  public static final Setting<Integer> IO_SPIN_MICROS = Setting.integer("io-spin-micros", "US", 50, 0, 10_000,
      "microseconds an idle event loop polls before it blocks; 0 = block at once");
  /** A connection whose request stays incomplete this long is closed (0: never). */
  public static final Setting<Integer> PROTO_READ_TIMEOUT = Setting.integer("proto-read-timeout", "SECONDS", 60, 0,
      Integer.MAX_VALUE, "close a connection whose request stays incomplete this long; 0 = never");
  /** Bytes of incomplete requests all connections may hold together (0: a quarter of the maximum heap). */
  public static final Setting<Long> QUERY_BUFFER_BUDGET = Setting.size("query-buffer-budget", "BYTES", 0L,
      "bytes of incomplete requests all clients may hold together; 0 = a quarter of the heap",
      zeroOrAtLeast(MB));
  /**
   * Bytes of replies one client may have buffered (queued and not yet taken by its socket, plus a
   * large reply being built); over it the client is disconnected at once. See
   * {@link org.kvstore.server.output.OutputLimits}.
   */
  public static final Setting<Long> CLIENT_OUTPUT_HARD_LIMIT = Setting.size("client-output-buffer-hard-limit", "BYTES",
      ServerConfig::defaultOutputHardLimit, "256mb or a quarter of the heap, if less",
      "bytes of replies one client may have buffered; over it the client is disconnected",
      Setting.sizeRange(64 * 1024, Long.MAX_VALUE));
  /** A client with more buffered reply bytes than this for {@link #CLIENT_OUTPUT_SOFT_SECONDS} is disconnected. */
  public static final Setting<Long> CLIENT_OUTPUT_SOFT_LIMIT = Setting.size("client-output-buffer-soft-limit", "BYTES",
      512 * 1024L, "a client over this many buffered reply bytes for client-output-buffer-soft-seconds is disconnected",
      Setting.sizeRange(64 * 1024, Long.MAX_VALUE));
  /** How long a client may stay over {@link #CLIENT_OUTPUT_SOFT_LIMIT} (0: the soft limit is off). */
  public static final Setting<Integer> CLIENT_OUTPUT_SOFT_SECONDS = Setting.integer("client-output-buffer-soft-seconds",
      "SECONDS", 60, 0, 86_400, "seconds a client may stay over client-output-buffer-soft-limit; 0 = no soft limit");
  /** Bytes of replies all clients may have buffered together; over it the largest are disconnected. */
  public static final Setting<Long> CLIENT_OUTPUT_TOTAL = Setting.size("client-output-buffer-total", "BYTES",
      ServerConfig::defaultOutputTotal, "a quarter of the heap",
      "bytes of replies all clients may have buffered together; over it the largest clients are disconnected",
      Setting.sizeRange(MB, Long.MAX_VALUE));
  /** Bytes of the block cache the store's lsm tables share (0 caches nothing). */
  public static final Setting<Long> BLOCK_CACHE_SIZE = Setting.size("block-cache-size", "BYTES",
      StoreOptions::defaultBlockCacheBytes, "a quarter of the heap",
      "bytes of the block cache the lsm tables share, held in direct memory outside the heap; 0 = none",
      Setting.sizeRange(0, Long.MAX_VALUE));
  /** Bytes the memtables of the store's lsm tables may hold together (0: only each table's memtable.size). */
  public static final Setting<Long> WRITE_BUFFER_BUDGET = Setting.size("write-buffer-budget", "BYTES",
      StoreOptions::defaultWriteBufferBytes, "a quarter of the heap",
      "bytes the memtables of all lsm tables may hold together, their values in direct memory (the budget plus an"
          + " eighth); past it the largest is flushed early and writes wait; 0 = no bound but each table's"
          + " memtable.size, values on the heap",
      zeroOrAtLeast(MB));
  /** Seconds between timed checkpoints (0: only by log size); see {@link StoreOptions#checkpointInterval()}. */
  public static final Setting<Long> CHECKPOINT_INTERVAL = Setting.of("checkpoint-interval", "SECONDS",
      StoreOptions.defaults().checkpointInterval().toSeconds(),
      "seconds between timed checkpoints (every table's state persisted, the log it no longer needs deleted);"
          + " 0 = only by log size",
      s -> Setting.number("checkpoint-interval", s, false), String::valueOf,
      n -> n >= 0 && n <= 86_400L * 365 ? null : "must be from 0 to " + 86_400L * 365 + " seconds");
  /** Log bytes written since the last checkpoint that start one. */
  public static final Setting<Long> CHECKPOINT_LOG_SIZE = Setting.size("checkpoint-log-size", "BYTES",
      StoreOptions.defaults().checkpointLogBytes(),
      "bytes of log written since the last checkpoint that start one; bounds the replay after a crash",
      n -> n >= MB ? null : "must be at least 1mb");

  /** Largest Thrift frame or message; values may be half of it, scan pages a quarter (see docs/thrift.md). */
  public static final Setting<Long> THRIFT_MAX_FRAME_SIZE = Setting.size("thrift-max-frame-size", "BYTES", 16_384_000L,
      "largest Thrift request or reply; a value may be half of it", Setting.sizeRange(64 * 1024, 1L << 30));

  /**
   * Seconds the {@code kvstore-server} command exercises its hot paths on a scratch store before it
   * opens its ports, at most (0: off); see {@link org.kvstore.server.warmup.ServerWarmup}.
   * {@link KVStoreServer#start(ServerConfig)} itself (embedded servers, tests) does not warm up.
   */
  public static final Setting<Integer> WARMUP_DURATION = Setting.integer("warmup-duration", "SECONDS", 0, 0, 600,
      "at most this many seconds of requests to a scratch store in a temporary directory before the ports open,"
          + " so that the JIT has compiled the request paths when clients arrive; ends sooner once compilation"
          + " settles; 0 = off");

  /** This node's id among {@link #CLUSTER_NODES}: set, the server runs as a cluster node (docs/cluster.md). */
  public static final Setting<String> CLUSTER_NODE_ID = Setting.of("cluster-node-id", "ID", null, "none",
      "run as this node of the cluster that cluster-nodes lists; none = a single server",
      s -> s.isEmpty() ? null : s, s -> s, s -> s == null || s.matches("[A-Za-z0-9_-]{1,64}") ? null
          : "must be 1 to 64 letters, digits, '-' or '_'");
  /** The cluster's nodes, the same list in the same order on every node. */
  public static final Setting<org.kvstore.server.cluster.ClusterMembers> CLUSTER_NODES = Setting.of(
      "cluster-nodes", "LIST", null, "none",
      "the cluster's nodes as id=host:port@raftport,... (port: the node's Redis port), the same on every node",
      s -> s.isEmpty() ? null : org.kvstore.server.cluster.ClusterMembers.parse(s), Object::toString, Setting.any());
  /** Where this node's Raft server listens, when the others reach it at another address. */
  public static final Setting<String> CLUSTER_RAFT_LISTEN = Setting.of("cluster-raft-listen", "HOST:PORT", null,
      "none", "the address this node's Raft server listens on when it differs from its host:raftport in"
          + " cluster-nodes (a proxy or NAT in between); none = that address",
      s -> s.isEmpty() ? null : s, s -> s, s -> s == null || s.matches("[^:\\s]+:[0-9]{1,5}") ? null
          : "must be host:port");
  /** How many shards the hash slots are split over; fixed when the cluster is created. */
  public static final Setting<Integer> CLUSTER_SHARDS = Setting.of("cluster-shards", "N", 0, "one per node",
      "how many shards (Raft groups of three replicas) the 16384 hash slots are split over, fixed at the"
          + " cluster's creation; 0 = one per node",
      s -> (int) Setting.number("cluster-shards", s, false), String::valueOf, Setting.range(0, 16384));
  /** Raft's election timeout (the minimum; the maximum is twice it). */
  public static final Setting<Integer> CLUSTER_ELECTION_TIMEOUT = Setting.integer("cluster-election-timeout", "MS",
      1000, 100, 60_000, "a follower that hears no leader for this long to twice it starts an election;"
          + " requests to a shard without a leader wait about as long");

  /** At most how long a shard leader's next batch of writes waits for the last batch's writers. */
  public static final Setting<Integer> CLUSTER_BATCH_WAIT = Setting.integer("cluster-batch-wait", "US",
      (int) org.kvstore.cluster.ClusterNodeOptions.DEFAULT_BATCH_WAIT.toNanos() / 1000, 0, 100_000,
      "when a shard leader's batch of writes is answered and others are queued, the next batch waits at"
          + " most this many microseconds until as many writers are queued as the two held (clients that"
          + " wait for each reply come back), so that one Raft entry carries them all; 0 = send at once");

  /** The largest write a cluster shard takes: one Raft entry, sent to each follower in one message. */
  public static final Setting<Long> CLUSTER_MAX_WRITE_SIZE = Setting.size("cluster-max-write-size", "BYTES",
      org.kvstore.cluster.ClusterNodeOptions.DEFAULT_MAX_WRITE_BYTES,
      "the largest write (keys and values of one command) a cluster node takes: one Raft entry, which"
          + " the leader sends to each follower in one message and holds in memory until it is applied;"
          + " a larger SET is refused with an error naming its key",
      Setting.sizeRange(org.kvstore.cluster.ClusterNodeOptions.MIN_MAX_WRITE_BYTES,
          org.kvstore.cluster.ClusterNodeOptions.MAX_MAX_WRITE_BYTES));

  /** How many applied Raft entries make a shard replica take a snapshot (and purge its log). */
  public static final Setting<Integer> CLUSTER_SNAPSHOT_ENTRIES = Setting.integer("cluster-snapshot-entries", "N",
      (int) org.kvstore.cluster.ClusterNodeOptions.DEFAULT_SNAPSHOT_ENTRIES, 100, 100_000_000,
      "a shard replica copies its tables (hard links) and purges its Raft log up to them once this many"
          + " entries were applied since its last snapshot; a replica behind the purged log installs the"
          + " leader's newest snapshot");

  /** How a cluster node answers a READONLY client's GET of a slot it does not lead. */
  public static final Setting<Boolean> CLUSTER_STALE_REPLICA_READS = Setting.of("cluster-stale-replica-reads", "BOOL",
      false, "after READONLY, a GET on a replica answers from what that replica has applied, which may miss"
          + " the latest writes (as a Redis replica does); false = a linearizable read",
      ServerConfig::bool, String::valueOf, Setting.any());

  /** Unsafe, for the fault tests' negative control: a cluster write answered before its commit. */
  public static final Setting<Boolean> CLUSTER_ACK_BEFORE_COMMIT = Setting.of("cluster-ack-before-commit", "BOOL",
      false, "UNSAFE: a shard leader answers a write once it has queued it, before a majority has it durably"
          + " (as Redis' asynchronous replication does), so a leader's crash or isolation loses acknowledged"
          + " writes; for testing that the fault tests catch lost writes. false = answered after the commit",
      ServerConfig::bool, String::valueOf, Setting.any());

  private static boolean bool(String s) {
    return switch (Setting.lower(s)) {
      case "true", "yes", "on" -> true;
      case "false", "no", "off" -> false;
      default -> throw new InvalidArgumentException("value", "must be true or false, was '" + s + "'");
    };
  }

  /** Every setting, in the order of {@code --help} and docs/server.md. */
  public static final List<Setting<?>> SETTINGS = List.of(
      DATA_DIR, BIND, RESP_PORT, HTTP_PORT, THRIFT_PORT, DEFAULT_ENGINE, DURABILITY, PASSWORD, HTTP_CORS_ORIGIN,
      LOG_LEVEL,
      PROTO_MAX_BULK_LEN, PROTO_MAX_MULTIBULK_LEN, DATABASES, MAX_CLIENTS, WORKER_THREADS, IO_THREADS,
      READ_THREADS, IO_SPIN_MICROS, PROTO_READ_TIMEOUT, QUERY_BUFFER_BUDGET, CLIENT_OUTPUT_HARD_LIMIT,
      CLIENT_OUTPUT_SOFT_LIMIT, CLIENT_OUTPUT_SOFT_SECONDS, CLIENT_OUTPUT_TOTAL, BLOCK_CACHE_SIZE,
      WRITE_BUFFER_BUDGET, CHECKPOINT_INTERVAL, CHECKPOINT_LOG_SIZE, THRIFT_MAX_FRAME_SIZE, WARMUP_DURATION,
      CLUSTER_NODE_ID, CLUSTER_NODES, CLUSTER_RAFT_LISTEN, CLUSTER_SHARDS, CLUSTER_ELECTION_TIMEOUT, CLUSTER_SNAPSHOT_ENTRIES, CLUSTER_BATCH_WAIT,
      CLUSTER_MAX_WRITE_SIZE, CLUSTER_STALE_REPLICA_READS, CLUSTER_ACK_BEFORE_COMMIT);

  private static final Map<String, Setting<?>> BY_KEY = byKey();

  private final Map<Setting<?>, Object> values;

  private ServerConfig(Map<Setting<?>, Object> values) {
    this.values = values;
  }

  /** The setting whose config-file key (flag without "--") is {@code key}, or null. */
  public static Setting<?> setting(String key) {
    return BY_KEY.get(key);
  }

  /** The value of {@code setting} (null only for an unset optional one: default-engine, password). */
  @SuppressWarnings("unchecked")
  public <T> T get(Setting<T> setting) {
    return (T) values.get(setting);
  }

  /** This node's id in a cluster, or null for a single server. */
  public String clusterNodeId() {
    return get(CLUSTER_NODE_ID);
  }

  /** The cluster's nodes, or null for a single server. */
  public org.kvstore.server.cluster.ClusterMembers clusterNodes() {
    return get(CLUSTER_NODES);
  }

  /** The cluster's shard count: as set, or one per node. */
  public int clusterShards() {
    int n = get(CLUSTER_SHARDS);
    return n > 0 || clusterNodes() == null ? n : clusterNodes().members().size();
  }

  public boolean clusterStaleReplicaReads() {
    return get(CLUSTER_STALE_REPLICA_READS);
  }

  public boolean clusterAckBeforeCommit() {
    return get(CLUSTER_ACK_BEFORE_COMMIT);
  }

  /** The Raft listen address, or {@code null} for the node's address in cluster-nodes. */
  public String clusterRaftListen() {
    return get(CLUSTER_RAFT_LISTEN);
  }

  public java.time.Duration clusterBatchWait() {
    return java.time.Duration.ofNanos(get(CLUSTER_BATCH_WAIT) * 1000L);
  }

  public long clusterMaxWriteSize() {
    return get(CLUSTER_MAX_WRITE_SIZE);
  }

  public long clusterSnapshotEntries() {
    return get(CLUSTER_SNAPSHOT_ENTRIES);
  }

  public java.time.Duration clusterElectionTimeout() {
    return java.time.Duration.ofMillis(get(CLUSTER_ELECTION_TIMEOUT));
  }

  public Path dataDir() {
    return get(DATA_DIR);
  }

  public String bind() {
    return get(BIND);
  }

  public int respPort() {
    return get(RESP_PORT);
  }

  public int httpPort() {
    return get(HTTP_PORT);
  }

  public int thriftPort() {
    return get(THRIFT_PORT);
  }

  /** Largest Thrift frame or message in bytes. */
  public int thriftMaxFrameBytes() {
    return (int) (long) get(THRIFT_MAX_FRAME_SIZE);
  }

  /** Engine of tables created by SELECT, or null: lsm, else bplus, else memory. */
  public String defaultEngine() {
    return get(DEFAULT_ENGINE);
  }

  public Durability durability() {
    return get(DURABILITY);
  }

  /** The password clients must give with AUTH / HELLO AUTH, or null for none. */
  public String password() {
    return get(PASSWORD);
  }

  /** The CORS origin of the HTTP API, or null when CORS is off. */
  public String httpCorsOrigin() {
    return get(HTTP_CORS_ORIGIN);
  }

  public String logLevel() {
    return get(LOG_LEVEL);
  }

  public long protoMaxBulkLen() {
    return get(PROTO_MAX_BULK_LEN);
  }

  public int protoMaxMultibulkLen() {
    return get(PROTO_MAX_MULTIBULK_LEN);
  }

  public int databases() {
    return get(DATABASES);
  }

  public int maxClients() {
    return get(MAX_CLIENTS);
  }

  public int workerThreads() {
    return get(WORKER_THREADS);
  }

  public int ioThreads() {
    return get(IO_THREADS);
  }

  public int readThreads() {
    return get(READ_THREADS);
  }

  public int ioSpinMicros() {
    return get(IO_SPIN_MICROS);
  }

  public int protoReadTimeoutSeconds() {
    return get(PROTO_READ_TIMEOUT);
  }

  public long queryBufferBudget() {
    return get(QUERY_BUFFER_BUDGET);
  }

  public long clientOutputHardLimit() {
    return get(CLIENT_OUTPUT_HARD_LIMIT);
  }

  public long clientOutputSoftLimit() {
    return get(CLIENT_OUTPUT_SOFT_LIMIT);
  }

  public int clientOutputSoftSeconds() {
    return get(CLIENT_OUTPUT_SOFT_SECONDS);
  }

  public long clientOutputTotal() {
    return get(CLIENT_OUTPUT_TOTAL);
  }

  /** 256 MiB, or a quarter of the heap when that is less (at least 1 MiB). */
  static long defaultOutputHardLimit() {
    return Math.max(MB, Math.min(256 * MB, Runtime.getRuntime().maxMemory() / 4));
  }

  /** A quarter of the heap (at least 1 MiB). */
  static long defaultOutputTotal() {
    return Math.max(MB, Runtime.getRuntime().maxMemory() / 4);
  }

  public long blockCacheBytes() {
    return get(BLOCK_CACHE_SIZE);
  }

  public long writeBufferBytes() {
    return get(WRITE_BUFFER_BUDGET);
  }

  public long checkpointIntervalSeconds() {
    return get(CHECKPOINT_INTERVAL);
  }

  public long checkpointLogBytes() {
    return get(CHECKPOINT_LOG_SIZE);
  }

  /** Most seconds of warm-up before the ports open (0: none); see {@link #WARMUP_DURATION}. */
  public int warmupSeconds() {
    return get(WARMUP_DURATION);
  }

  /**
   * The event loops to run on {@code cores} cores: {@code io-threads}, or by default half the cores
   * (at least one). On a small machine the clients, the store's background threads and the read
   * helpers need the other cores (see docs/decisions/0007-one-event-loop-and-read-helper.md).
   */
  public int eventLoops(int cores) {
    int ioThreads = ioThreads();
    return ioThreads > 0 ? ioThreads : Math.max(1, cores / 2);
  }

  /** The read helper threads to run on {@code cores} cores: {@code read-threads}, or the cores the event loops leave. */
  public int readHelpers(int cores) {
    int readThreads = readThreads();
    return readThreads >= 0 ? readThreads : Math.max(0, cores - eventLoops(cores));
  }

  public static ServerConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  private static Setting<Integer> port(String key, int defaultPort, String help) {
    return Setting.of(key, "PORT", defaultPort, help, s -> (int) Setting.number(key, s, false), String::valueOf,
        p -> p >= -1 && p <= 65535 ? null : "must be from -1 (off) to 65535");
  }

  private static Setting.Check<Long> zeroOrAtLeast(long min) {
    return n -> n == 0 || n >= min ? null : "must be 0 or at least " + Setting.formatSize(min);
  }

  /** An explicit read-threads count: "auto" is the only way to ask for the default. */
  private static int explicitReadThreads(String s) {
    int n = (int) Setting.number("read-threads", s, false);
    if (n < 0) {
      throw new InvalidArgumentException("read-threads", "must be 'auto' or from 0 to 1024, was '" + s + "'");
    }
    return n;
  }

  private static Map<String, Setting<?>> byKey() {
    Map<String, Setting<?>> m = new LinkedHashMap<>();
    for (Setting<?> s : SETTINGS) {
      if (m.put(s.key(), s) != null) {
        throw new IllegalStateException("two settings named " + s.key());
      }
    }
    return Collections.unmodifiableMap(m);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerConfig other && values.equals(other.values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  /** Every setting by key, the password hidden: safe to log. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("ServerConfig[");
    for (Setting<?> s : SETTINGS) {
      if (b.length() > "ServerConfig[".length()) {
        b.append(", ");
      }
      b.append(s.key()).append('=').append(shown(s));
    }
    return b.append(']').toString();
  }

  private <T> String shown(Setting<T> s) {
    T v = get(s);
    if (v == null) {
      return "none";
    }
    return s.secret() ? "***" : s.format(v);
  }

  /**
   * Reads a configuration file: YAML ({@code .yaml}, {@code .yml}) or Java properties (any other
   * name). Returns the key/value pairs, unvalidated; {@link Builder#set} validates them.
   *
   * @throws InvalidArgumentException if the file cannot be read or parsed, or nests values
   */
  public static Map<String, String> readFile(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    Map<String, String> out = new LinkedHashMap<>();
    try (InputStream in = Files.newInputStream(file)) {
      if (name.endsWith(".yaml") || name.endsWith(".yml")) {
        JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(in);
        if (root == null || root.isMissingNode() || root.isNull()) {
          return out;
        }
        if (!root.isObject()) {
          throw new InvalidArgumentException("config file", file + " must hold a mapping of settings");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          JsonNode v = e.getValue();
          if (v.isContainerNode()) {
            throw new InvalidArgumentException(
                "config file", file + ": '" + e.getKey() + "' must be a single value");
          }
          out.put(e.getKey(), v.isNull() ? "" : v.asText());
        }
      } else {
        Properties p = new Properties();
        p.load(in);
        for (String k : p.stringPropertyNames()) {
          out.put(k, p.getProperty(k).trim());
        }
      }
    } catch (IOException e) {
      throw new InvalidArgumentException("config file", "cannot read " + file + ": " + e.getMessage());
    }
    return out;
  }

  /** Collects settings, each validated as it is set; unset ones keep their defaults. Thread safety: confined. */
  public static final class Builder {
    private final Map<Setting<?>, Object> values = new LinkedHashMap<>();

    private Builder() {}

    /** Applies every pair of {@code settings} (from a file); {@code source} names it in errors. */
    public Builder setAll(Map<String, String> settings, String source) {
      for (Map.Entry<String, String> e : settings.entrySet()) {
        try {
          set(e.getKey(), e.getValue());
        } catch (InvalidArgumentException ex) {
          throw new InvalidArgumentException("config file", source + ": " + ex.getMessage());
        }
      }
      return this;
    }

    /**
     * Sets one setting by its key, from its text.
     *
     * @throws InvalidArgumentException for an unknown key, or naming the key and the value for a
     *     malformed or invalid value
     */
    public Builder set(String key, String value) {
      Setting<?> s = setting(key);
      if (s == null) {
        throw new InvalidArgumentException(
            "setting", "unknown key '" + key + "'; known keys: " + String.join(", ", BY_KEY.keySet()));
      }
      values.put(s, s.parse(value));
      return this;
    }

    /**
     * Sets one setting to {@code value}.
     *
     * @throws InvalidArgumentException naming the setting and the value if it is invalid
     */
    public <T> Builder set(Setting<T> setting, T value) {
      values.put(setting, setting.validate(value));
      return this;
    }

    /**
     * The configuration: the values set, every other setting at its default.
     *
     * @throws InvalidArgumentException if the cluster settings do not fit together
     */
    public ServerConfig build() {
      Map<Setting<?>, Object> all = new HashMap<>();
      for (Setting<?> s : SETTINGS) {
        all.put(s, values.containsKey(s) ? values.get(s) : s.defaultValue());
      }
      checkCluster(all);
      return new ServerConfig(Collections.unmodifiableMap(all));
    }

    /** A cluster node needs its id among the nodes; its Redis port is the one the list gives it. */
    private void checkCluster(Map<Setting<?>, Object> all) {
      String id = (String) all.get(CLUSTER_NODE_ID);
      org.kvstore.server.cluster.ClusterMembers members =
          (org.kvstore.server.cluster.ClusterMembers) all.get(CLUSTER_NODES);
      if (id == null && members == null) {
        return;
      }
      if (id == null || members == null) {
        throw new InvalidArgumentException(id == null ? "cluster-node-id" : "cluster-nodes",
            "a cluster node needs both cluster-node-id and cluster-nodes");
      }
      org.kvstore.server.cluster.ClusterMembers.Member me = members.member(id);
      if (me == null) {
        throw new InvalidArgumentException("cluster-node-id", "'" + id + "' is not one of the cluster-nodes "
            + members.members().stream().map(org.kvstore.server.cluster.ClusterMembers.Member::id).toList());
      }
      if (values.containsKey(RESP_PORT) && (int) values.get(RESP_PORT) != me.port()) {
        throw new InvalidArgumentException("resp-port", values.get(RESP_PORT) + " differs from node " + id
            + "'s port " + me.port() + " in cluster-nodes, which clients are redirected to");
      }
      all.put(RESP_PORT, me.port());
    }
  }
}
