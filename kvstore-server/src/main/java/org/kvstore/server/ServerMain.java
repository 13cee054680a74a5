package org.kvstore.server;

import io.netty.util.ResourceLeakDetector;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.kvstore.KVStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code kvstore-server} command: parses flags (and a {@code --config} file), starts a
 * {@link KVStoreServer}, and runs until SIGTERM or SIGINT, then shuts down cleanly and exits 0.
 * A start-up failure prints one line ({@code kvstore-server: <reason>}) on stderr and exits 1.
 *
 * <p>This is the only class allowed to call {@code System.exit}.
 *
 * <p>Thread safety: used by the main thread only.
 */
@Command(
    name = "kvstore-server",
    mixinStandardHelpOptions = true,
    versionProvider = ServerMain.Version.class,
    sortOptions = false,
    description = "Serves a KVStore data directory over the Redis protocol (RESP2/RESP3).",
    footer = "%nEvery flag can also be set in the --config file under the same name without '--'"
        + " (YAML: 'resp-port: 6380'; properties: 'resp-port=6380'). Flags win over the file.")
public final class ServerMain implements Callable<Integer> {

  @Option(names = "--config", paramLabel = "FILE", description = "YAML (.yaml/.yml) or .properties file with settings")
  private Path configFile;

  @Option(names = "--data-dir", paramLabel = "DIR", description = "data directory (default: ./data)")
  private String dataDir;

  @Option(names = "--bind", paramLabel = "ADDR", description = "listen address (default: 127.0.0.1)")
  private String bind;

  @Option(names = "--resp-port", paramLabel = "PORT", description = "Redis protocol port; 0 any free port, -1 off (default: 6379)")
  private String respPort;

  @Option(names = "--http-port", paramLabel = "PORT", description = "HTTP port, not served yet (default: 8080)")
  private String httpPort;

  @Option(names = "--thrift-port", paramLabel = "PORT", description = "Thrift port, not served yet (default: 9090)")
  private String thriftPort;

  @Option(names = "--default-engine", paramLabel = "ENGINE", description = "engine of new tables: lsm, bplus or memory (default: lsm, else bplus, else memory)")
  private String defaultEngine;

  @Option(names = "--durability", paramLabel = "MODE", description = "sync (default), periodic or none")
  private String durability;

  @Option(names = "--password", paramLabel = "PASSWORD", description = "require AUTH with this password")
  private String password;

  @Option(names = "--log-level", paramLabel = "LEVEL", description = "trace, debug, info (default), warn, error")
  private String logLevel;

  @Option(names = "--proto-max-bulk-len", paramLabel = "BYTES", description = "largest bulk string in a request (default: 512mb)")
  private String protoMaxBulkLen;

  @Option(names = "--proto-max-multibulk-len", paramLabel = "N", description = "most arguments in a request (default: 1048576)")
  private String protoMaxMultibulkLen;

  @Option(names = "--databases", paramLabel = "N", description = "indexes SELECT accepts (default: 16)")
  private String databases;

  @Option(names = "--maxclients", paramLabel = "N", description = "most client connections (default: 10000)")
  private String maxClients;

  @Option(names = "--worker-threads", paramLabel = "N", description = "threads for commands that may block (default: 256)")
  private String workerThreads;

  @Option(names = "--io-threads", paramLabel = "N", description = "network event-loop threads; 0 = half the cores, at least one (default: 0)")
  private String ioThreads;

  @Option(names = "--read-threads", paramLabel = "N",
      description = "threads that run the pipelined reads of a connection beside the event loops; 0 = none (default: auto, the cores the event loops leave)")
  private String readThreads;

  @Option(names = "--io-spin-micros", paramLabel = "US",
      description = "microseconds an idle event loop polls before it blocks; 0 = block at once (default: 50)")
  private String ioSpinMicros;

  @Option(names = "--proto-read-timeout", paramLabel = "SECONDS", description = "close a connection whose request stays incomplete this long; 0 = never (default: 60)")
  private String protoReadTimeout;

  @Option(names = "--query-buffer-budget", paramLabel = "BYTES", description = "bytes of incomplete requests all clients may hold together; 0 = a quarter of the heap (default: 0)")
  private String queryBufferBudget;

  @Option(names = "--block-cache-size", paramLabel = "BYTES", description = "bytes of the block cache the lsm tables share; 0 = none (default: a quarter of the heap)")
  private String blockCacheSize;

  @Option(names = "--write-buffer-budget", paramLabel = "BYTES", description = "bytes the memtables of all lsm tables may hold together; past it the largest is flushed early and writes wait; 0 = no bound but each table's memtable.size (default: a quarter of the heap)")
  private String writeBufferBudget;

  @Option(names = "--checkpoint-interval", paramLabel = "SECONDS", description = "seconds between timed checkpoints (every table's state persisted, the log it no longer needs deleted); 0 = only by log size (default: 60)")
  private String checkpointInterval;

  @Option(names = "--checkpoint-log-size", paramLabel = "BYTES", description = "bytes of log written since the last checkpoint that start one; bounds the replay after a crash (default: 256mb)")
  private String checkpointLogSize;

  private volatile KVStoreServer running;
  private final CountDownLatch stop = new CountDownLatch(1);

  public static void main(String[] args) {
    // Netty's leak detector records a stack trace for a sample of buffer allocations (1 in 128 at
    // its default level): about 1 % of the event loops' CPU under load. The tests, which start the
    // server in-process, keep the default level; -Dio.netty.leakDetection.level still sets it here.
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
    CommandLine cli = new CommandLine(new ServerMain());
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("kvstore-server: " + oneLine(e));
      return 1;
    });
    cli.setParameterExceptionHandler((e, args1) -> {
      e.getCommandLine().getErr().println("kvstore-server: " + e.getMessage());
      e.getCommandLine().getErr().println("Try 'kvstore-server --help' for the options.");
      return 1;
    });
    System.exit(cli.execute(args));
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.toString() : e.getMessage();
    return m.replace('\n', ' ').replace('\r', ' ');
  }

  /** The configuration from defaults, the file and the flags. */
  ServerConfig config() {
    ServerConfig.Builder b = ServerConfig.builder();
    if (configFile != null) {
      b.setAll(ServerConfig.readFile(configFile), configFile.toString());
    }
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("data-dir", dataDir);
    flags.put("bind", bind);
    flags.put("resp-port", respPort);
    flags.put("http-port", httpPort);
    flags.put("thrift-port", thriftPort);
    flags.put("default-engine", defaultEngine);
    flags.put("durability", durability);
    flags.put("password", password);
    flags.put("log-level", logLevel);
    flags.put("proto-max-bulk-len", protoMaxBulkLen);
    flags.put("proto-max-multibulk-len", protoMaxMultibulkLen);
    flags.put("databases", databases);
    flags.put("maxclients", maxClients);
    flags.put("worker-threads", workerThreads);
    flags.put("io-threads", ioThreads);
    flags.put("read-threads", readThreads);
    flags.put("io-spin-micros", ioSpinMicros);
    flags.put("proto-read-timeout", protoReadTimeout);
    flags.put("query-buffer-budget", queryBufferBudget);
    flags.put("block-cache-size", blockCacheSize);
    flags.put("write-buffer-budget", writeBufferBudget);
    flags.put("checkpoint-interval", checkpointInterval);
    flags.put("checkpoint-log-size", checkpointLogSize);
    for (Map.Entry<String, String> e : flags.entrySet()) {
      if (e.getValue() != null) {
        try {
          b.set(e.getKey(), e.getValue());
        } catch (KVStoreException ex) {
          throw new KVStoreException("--" + e.getKey() + ": " + ex.getMessage());
        }
      }
    }
    return b.build();
  }

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig config = config();
    // Before the first logger is created: logback.xml reads the level from this property.
    System.setProperty("kvstore.log.level", config.logLevel().toUpperCase(java.util.Locale.ROOT));
    Logger log = LoggerFactory.getLogger(ServerMain.class);
    installSignalHandlers(log);
    running = KVStoreServer.start(config);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      // Other ways out (SIGHUP, System.exit elsewhere): still close the store cleanly.
      stop.countDown();
      closeQuietly(log);
    }, "kv-shutdown"));
    stop.await();
    closeQuietly(log);
    return 0;
  }

  private void closeQuietly(Logger log) {
    KVStoreServer s = running;
    if (s != null) {
      try {
        s.close();
      } catch (KVStoreException e) {
        log.error("shutdown: {}", e.getMessage());
      }
    }
  }

  /**
   * SIGTERM and SIGINT only release the main thread, which shuts down and returns 0; the JVM's
   * default handlers would exit with 143/130 instead.
   */
  @SuppressWarnings("restriction")
  private void installSignalHandlers(Logger log) {
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> {
          log.info("received SIG{}", sig.getName());
          stop.countDown();
        });
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        log.debug("cannot handle SIG{}: {}", name, e.getMessage());
      }
    }
  }

  /** Version for --version. Thread safety: stateless. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"kvstore-server " + KVStoreServer.version()};
    }
  }
}
