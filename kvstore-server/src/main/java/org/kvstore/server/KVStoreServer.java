package org.kvstore.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.kvstore.KVStore;
import org.kvstore.cluster.ClusterLayout;
import org.kvstore.cluster.ClusterNode;
import org.kvstore.cluster.ClusterNodeOptions;
import org.kvstore.cluster.ShardedTable;
import org.kvstore.server.cluster.ClusterFrontEnd;
import org.kvstore.server.cluster.ClusterMembers;
import org.kvstore.KVStoreException;
import org.kvstore.StorageIOException;
import org.kvstore.StoreLockedException;
import org.kvstore.StoreOptions;
import org.kvstore.server.http.HttpProtocolServer;
import org.kvstore.server.metrics.ByteCounter;
import org.kvstore.server.metrics.ProtocolMetrics;
import org.kvstore.server.metrics.ServerMetrics;
import org.kvstore.server.output.OutputLimits;
import org.kvstore.server.resp.QueryBufferBudget;
import org.kvstore.server.resp.ReadOffload;
import org.kvstore.server.resp.RespCommandExecutor;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.ServerSettings;
import org.kvstore.server.thrift.ThriftLimits;
import org.kvstore.server.thrift.ThriftRequestCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The server process minus its command line: opens the store, makes sure database {@code default}
 * with table {@code 0} exists, starts the protocol front ends on shared Netty event loops, and
 * shuts all of it down in order.
 *
 * <pre>
 *   start:  open store ──▶ (command only: warm-up) ──▶ default table ──▶ worker pool ──▶ event loops
 *           ──▶ bind RESP, HTTP, Thrift ──▶ log "started"
 *   close:  stop accepting ──▶ finish running commands (worker pool drains) ──▶ close connections
 *           ──▶ stop event loops ──▶ checkpoint ──▶ close store
 * </pre>
 *
 * <p>Tests start it in-process on port 0 with {@link #start}; {@link ServerMain} wraps it for the
 * command line.
 *
 * <p>Thread safety: thread-safe; {@link #close} is idempotent and may be called from any thread.
 */
public final class KVStoreServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KVStoreServer.class);

  private final ServerConfig config;
  private final KVStore store;
  private final ThreadPoolExecutor workers;
  /** Helpers for pipelined reads, or null when there are none. */
  private final ReadOffload reads;
  private final NettyTransport transport;
  private final List<ProtocolServer> servers;
  private final RespCommandExecutor executor;
  private final RespProtocolServer resp;
  /** The Thrift front end, or null when off. */
  private final ThriftProtocolServer thrift;
  /** The HTTP front end, or null when it is off. */
  private final HttpProtocolServer http;
  private final ServerMetrics metrics;
  /** The cluster node this server fronts (it owns the store), or null for a single server. */
  private final ClusterNode clusterNode;
  /** INFO for the server, DEBUG for the warm-up's scratch server: only one start and stop in the log. */
  private final Level lifecycleLevel;
  @GuardedBy("this")
  private boolean closed;

  private KVStoreServer(
      ServerConfig config, KVStore store, ThreadPoolExecutor workers, ReadOffload reads,
      NettyTransport transport, List<ProtocolServer> servers, RespCommandExecutor executor,
      RespProtocolServer resp, HttpProtocolServer http, ThriftProtocolServer thrift,
      ServerMetrics metrics, ClusterNode clusterNode, Level lifecycleLevel) {
    this.config = config;
    this.clusterNode = clusterNode;
    this.store = store;
    this.workers = workers;
    this.reads = reads;
    this.transport = transport;
    this.servers = servers;
    this.executor = executor;
    this.resp = resp;
    this.thrift = thrift;
    this.http = http;
    this.metrics = metrics;
    this.lifecycleLevel = lifecycleLevel;
  }

  /** The version of this build, from the jar (or "dev"). */
  public static String version() {
    try (InputStream in = KVStoreServer.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        String v = p.getProperty("version", "");
        if (!v.isEmpty() && !v.startsWith("$")) {
          return v;
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return "dev";
  }

  /**
   * Starts a server.
   *
   * @throws ServerStartException with a one-line reason (port in use, data directory unusable or
   *     locked by another process, unknown engine)
   */
  public static KVStoreServer start(ServerConfig config) {
    return start(config, () -> {}, Level.INFO);
  }

  /**
   * Starts a server that logs its start and stop at debug level only: the warm-up's scratch server
   * ({@link org.kvstore.server.warmup.ServerWarmup}), which must not look like the server in the log.
   *
   * @throws ServerStartException as {@link #start(ServerConfig)}
   */
  public static KVStoreServer startQuietly(ServerConfig config) {
    return start(config, () -> {}, Level.DEBUG);
  }

  /**
   * Starts a server, running {@code beforeListening} once the store is open and before any port is
   * bound: the command's warm-up ({@link ServerMain}), so a locked or unusable data directory fails
   * the start before it, and no client connects before it has ended.
   */
  static KVStoreServer start(ServerConfig config, Runnable beforeListening) {
    return start(config, beforeListening, Level.INFO);
  }

  private static KVStoreServer start(ServerConfig config, Runnable beforeListening, Level lifecycleLevel) {
    checkDataDir(config.dataDir());
    ClusterNode clusterNode = config.clusterNodeId() == null ? null : startClusterNode(config);
    KVStore store = clusterNode == null ? openStore(config) : clusterNode.store();
    ThreadPoolExecutor workers = null;
    ReadOffload reads = null;
    NettyTransport transport = null;
    ServerMetrics metrics = null;
    List<ProtocolServer> started = new ArrayList<>();
    try {
      beforeListening.run();
      String engine;
      try {
        engine = Keyspace.chooseEngine(store.engines(), config.defaultEngine());
      } catch (IllegalArgumentException e) {
        throw new ServerStartException("--default-engine: " + e.getMessage());
      }
      Keyspace keyspace;
      if (clusterNode != null) {
        ClusterMembers members = config.clusterNodes();
        ShardedTable table = new ShardedTable(clusterNode, CLUSTER_TABLE, config.clusterElectionTimeout().multipliedBy(2),
            id -> members.member(id) == null ? null : members.member(id).endpoint(), config.clusterStaleReplicaReads());
        keyspace = new Keyspace(new ClusterFrontEnd(clusterNode, members, table));
        engine = clusterNode.layout().engine();
      } else {
        keyspace = new Keyspace(store, engine, config.databases());
        keyspace.ensureDefaults();
      }
      ServerSettings settings = new ServerSettings(
          version(), store.directory(), config.bind(), config.durability(), config.password(),
          config.maxClients(), config.protoMaxBulkLen(), config.protoMaxMultibulkLen());
      OutputLimits outputLimits = new OutputLimits(config.clientOutputHardLimit(), config.clientOutputSoftLimit(),
          config.clientOutputSoftSeconds(), config.clientOutputTotal());
      RespCommandExecutor executor = new RespCommandExecutor(keyspace, settings, outputLimits);
      workers = newWorkerPool(config.workerThreads());
      int cores = Runtime.getRuntime().availableProcessors();
      if (config.readHelpers(cores) > 0) {
        reads = new ReadOffload(config.readHelpers(cores));
      }
      transport = new NettyTransport(config.eventLoops(cores), config.ioSpinMicros());
      metrics = new ServerMetrics(store);
      if (clusterNode != null) {
        metrics.addCluster(clusterNode::status);
        metrics.counter("kv_cluster_expired_keys", "expired entries of the shards this node leads that it removed"
            + " through Raft (kv_expired_keys counts the store's own tables)", () -> clusterNode.expiryStats().removed());
      }
      metrics.counter("kvstore_client_output_buffer_limit_disconnections",
          "client connections closed for going over an output buffer limit", outputLimits::disconnections);
      RespProtocolServer resp = null;
      if (config.respPort() >= 0) {
        ByteCounter respBytes = new ByteCounter();
        long budget = config.queryBufferBudget() > 0
            ? config.queryBufferBudget() : Math.max(64L << 20, Runtime.getRuntime().maxMemory() / 4);
        resp = new RespProtocolServer(transport, config.bind(), config.respPort(), executor, workers,
            reads, new QueryBufferBudget(budget), config.protoReadTimeoutSeconds() * 1000L, respBytes,
            outputLimits);
        resp.start();
        started.add(resp);
        metrics.add(new ProtocolMetrics("resp", executor.requestCounts(), executor::connectedClients,
            executor::acceptedConnections, respBytes));
      }
      HttpProtocolServer http = null;
      if (config.httpPort() >= 0) {
        Map<String, BooleanSupplier> readiness = new LinkedHashMap<>();
        readiness.put("storage", () -> store.failure() == null);
        RespProtocolServer respServer = resp;
        if (respServer != null) {
          readiness.put("resp", respServer::listening);
        }
        http = new HttpProtocolServer(
            new HttpProtocolServer.Options(config.bind(), config.httpPort(), config.httpCorsOrigin(),
                config.protoReadTimeoutSeconds() * 1000L, transport.acceptGroup(), transport.ioGroup(),
                transport.serverChannelClass(), workers, outputLimits),
            keyspace, settings, metrics, readiness);
        http.start();
        started.add(http);
      }
      ThriftProtocolServer thrift = null;
      if (config.thriftPort() >= 0) {
        ThriftRequestCounter thriftRequests = new ThriftRequestCounter();
        thrift = new ThriftProtocolServer(transport, config.bind(), config.thriftPort(), keyspace,
            ThriftLimits.of(config.thriftMaxFrameBytes(), store.options().maxValueBytes()), config.password(),
            workers, thriftRequests::served, outputLimits);
        thrift.start();
        started.add(thrift);
        metrics.add(new ProtocolMetrics("thrift", thriftRequests.counts(), thrift::openConnections,
            thrift::acceptedConnections, thrift.bytes()));
      }
      int respPort = resp == null ? -1 : resp.address().getPort();
      int httpPort = http == null ? -1 : http.address().getPort();
      int thriftPort = thrift == null ? -1 : thrift.address().getPort();
      settings.ports(respPort, httpPort, thriftPort);
      KVStoreServer server = new KVStoreServer(
          config, store, workers, reads, transport, started, executor, resp, http, thrift, metrics, clusterNode,
          lifecycleLevel);
      server.logStarted(engine, respPort);
      return server;
    } catch (RuntimeException e) {
      for (ProtocolServer s : started) {
        s.stopAccepting();
      }
      if (transport != null) {
        transport.close();
      }
      if (metrics != null) {
        metrics.close();
      }
      if (workers != null) {
        workers.shutdownNow();
      }
      if (reads != null) {
        reads.close();
      }
      try {
        if (clusterNode != null) {
          clusterNode.close();
        } else {
          store.close();
        }
      } catch (KVStoreException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** The table of every shard: Redis' database 0, the one database of a cluster. */
  static final String CLUSTER_TABLE = "0";

  /**
   * Starts this server's cluster node: its store and Raft server in the data directory, joined to
   * the shard groups of the layout that cluster-nodes and cluster-shards give (the same on every
   * node). Returns without waiting for leaders.
   */
  private static ClusterNode startClusterNode(ServerConfig config) {
    ClusterMembers members = config.clusterNodes();
    String engine = config.defaultEngine() == null ? "lsm" : config.defaultEngine();
    ClusterLayout layout;
    try {
      layout = new ClusterLayout(members.raftAddresses(), config.clusterShards(), List.of(CLUSTER_TABLE), engine);
    } catch (IllegalArgumentException | KVStoreException e) {
      throw new ServerStartException("cluster: " + e.getMessage(), e);
    }
    Duration election = config.clusterElectionTimeout();
    ClusterNodeOptions options = ClusterNodeOptions.of(config.clusterNodeId(), config.dataDir(), layout)
        .withTimeouts(election, election.multipliedBy(2), Duration.ofSeconds(10).plus(election.multipliedBy(2)))
        .withSnapshotEntries(config.clusterSnapshotEntries())
        .withBatchWait(config.clusterBatchWait())
        .withMaxWriteBytes(config.clusterMaxWriteSize())
        .withAckBeforeCommit(config.clusterAckBeforeCommit())
        .withRaftListenAddress(config.clusterRaftListen())
        .withStoreOptions(storeOptions(config));
    try {
      return ClusterNode.start(options);
    } catch (StoreLockedException e) {
      throw new ServerStartException(e.getMessage(), e);
    } catch (KVStoreException e) {
      throw new ServerStartException("cannot start cluster node " + config.clusterNodeId() + " in " + config.dataDir()
          + ": " + e.getMessage(), e);
    }
  }

  private static void checkDataDir(Path dir) {
    if (Files.exists(dir)) {
      if (!Files.isDirectory(dir)) {
        throw new ServerStartException("data directory " + dir.toAbsolutePath() + " is not a directory");
      }
      if (!Files.isReadable(dir) || !Files.isWritable(dir) || !Files.isExecutable(dir)) {
        throw new ServerStartException(
            "data directory " + dir.toAbsolutePath() + " is not readable and writable by this user");
      }
    }
  }

  private static KVStore openStore(ServerConfig config) {
    StoreOptions options = storeOptions(config);
    try {
      return KVStore.open(config.dataDir(), options);
    } catch (StoreLockedException e) {
      throw new ServerStartException(e.getMessage(), e);
    } catch (StorageIOException e) {
      throw new ServerStartException("cannot open the data directory: " + e.getMessage(), e);
    } catch (KVStoreException e) {
      throw new ServerStartException("cannot open the store in " + config.dataDir() + ": " + e.getMessage(), e);
    }
  }

  private static StoreOptions storeOptions(ServerConfig config) {
    return StoreOptions.builder()
        .durability(config.durability())
        .maxValueBytes((int) Math.min(config.protoMaxBulkLen(), Integer.MAX_VALUE - 16))
        .blockCacheBytes(config.blockCacheBytes())
        .writeBufferBytes(config.writeBufferBytes())
        .checkpointInterval(Duration.ofSeconds(config.checkpointIntervalSeconds()))
        .checkpointLogBytes(config.checkpointLogBytes())
        .build();
  }

  private static ThreadPoolExecutor newWorkerPool(int threads) {
    AtomicInteger n = new AtomicInteger();
    // The queue holds at most one task per connection (a connection waits for its task), so it is
    // bounded by maxclients; the thread count bounds concurrency.
    ThreadPoolExecutor pool = new ThreadPoolExecutor(
        threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> {
          Thread t = new Thread(r, "kv-worker-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private void logStarted(String engine, int respPort) {
    String bind = config.bind();
    String respText = respPort < 0 ? "RESP off" : "RESP on " + bind + ":" + respPort;
    String httpText = http == null ? "HTTP off" : "HTTP on " + bind + ":" + http.address().getPort();
    String thriftText = thrift == null ? "Thrift off" : "Thrift on " + bind + ":" + thrift.address().getPort();
    LOG.atLevel(lifecycleLevel).log("kvstore-server {} started: data dir {}, engines {} (default {}), durability {}, {}, {}, {}, transport {}"
            + " (event loops: {}, read helpers: {})",
        version(), store.directory(), store.engines(), engine,
        config.durability().name().toLowerCase(java.util.Locale.ROOT), respText, httpText, thriftText, transport.name(),
        transport.eventLoops(), reads == null ? 0 : reads.threads());
    if (lifecycleLevel == Level.INFO && config.password() == null && !isLoopback(bind)) {
      LOG.warn("listening on non-loopback address {} without a password: anyone who can reach it can read and"
          + " change every table (set --password)", bind);
    }
  }

  private static boolean isLoopback(String bind) {
    try {
      return InetAddress.getByName(bind).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The store the server serves. */
  public KVStore store() {
    return store;
  }

  public ServerConfig config() {
    return config;
  }

  /** The bound RESP port (the actual one when 0 was configured), or -1 when RESP is off. */
  /** Bytes of incomplete requests held now by all RESP connections (0 when RESP is off). */
  long queryBufferBytes() {
    return resp == null ? 0 : resp.budget().used();
  }

  /** The bound Thrift port (the actual one when 0 was configured), or -1 when Thrift is off. */
  public int thriftPort() {
    return thrift == null ? -1 : thrift.address().getPort();
  }

  /** The bound HTTP port (the actual one when 0 was configured), or -1 when HTTP is off. */
  public int httpPort() {
    return http == null ? -1 : http.address().getPort();
  }

  /** The HTTP front end, or null when it is off. */
  public HttpProtocolServer httpServer() {
    return http;
  }

  /** The server's metrics registry (what GET /metrics serves). */
  public ServerMetrics metrics() {
    return metrics;
  }

  public int respPort() {
    return resp == null ? -1 : resp.address().getPort();
  }

  /** Runs of pipelined reads handed to the read helpers since start (0 without helpers). */
  long offloadedReadRuns() {
    return reads == null ? 0 : reads.runs();
  }

  /** Number of open RESP connections. */
  public long connectedClients() {
    return executor.connectedClients();
  }

  /**
   * Stops accepting, lets running commands finish (up to 30 s), closes connections, checkpoints and
   * closes the store. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    LOG.atLevel(lifecycleLevel).log("shutting down: no new connections; finishing running commands");
    for (ProtocolServer s : servers) {
      s.stopAccepting();
    }
    workers.shutdown();
    try {
      if (!workers.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("commands still running after 30 s; closing anyway");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (reads != null) {
      reads.close(); // queued reads finish and hand their replies to the loops, still running
    }
    for (ProtocolServer s : servers) {
      s.closeConnections();
    }
    transport.close();
    metrics.close();
    KVStoreException failure = null;
    if (clusterNode == null) {
      try {
        if (store.failure() == null) {
          store.checkpoint();
        }
      } catch (KVStoreException e) {
        failure = e;
      }
    }
    try {
      if (clusterNode != null) {
        clusterNode.close(); // the Raft server, then the store, which checkpoints
      } else {
        store.close();
      }
    } catch (KVStoreException e) {
      if (failure != null) {
        e.addSuppressed(failure);
      }
      failure = e;
    }
    if (failure != null) {
      LOG.error("closing the store failed: {}", failure.getMessage());
      throw failure;
    }
    LOG.atLevel(lifecycleLevel).log("stopped");
  }
}
