package org.kvstore.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.kvstore.Durability;
import org.kvstore.InvalidArgumentException;
import org.kvstore.StoreOptions;

/**
 * The server's configuration, validated once here. Every setting has a command-line flag
 * ({@code --resp-port}) and the same key in a configuration file ({@code resp-port: 6380} in YAML,
 * {@code resp-port=6380} in a .properties file). Precedence: defaults, then the file, then flags.
 * An unknown key is an error, so a typo cannot silently leave a default in place.
 *
 * @param dataDir the store's directory
 * @param bind the address every protocol listens on
 * @param respPort Redis protocol port: 0 any free port, -1 off
 * @param httpPort HTTP port (accepted; not served yet): 0 any, -1 off
 * @param thriftPort Thrift port (accepted; not served yet): 0 any, -1 off
 * @param defaultEngine engine of tables created by SELECT, or null: lsm, else bplus, else memory
 * @param durability default durability of durable tables
 * @param password the password clients must give with AUTH / HELLO AUTH, or null for none
 * @param logLevel root log level (trace, debug, info, warn, error)
 * @param protoMaxBulkLen largest bulk string (value, key, argument) in a request
 * @param protoMaxMultibulkLen most arguments in one request
 * @param databases number of indexes SELECT accepts
 * @param maxClients most simultaneous client connections
 * @param workerThreads threads that run commands which may block (sync writes, scans)
 * @param ioThreads Netty event-loop threads (0: half the cores, at least one; see
 *     {@link #eventLoops})
 * @param readThreads helper threads for the runs of quick reads of pipelining connections (-1:
 *     the cores the event loops leave; 0: none; see {@link #readHelpers})
 * @param ioSpinMicros how long an idle event loop polls for ready connections, yielding the CPU
 *     between polls, before it blocks (0: block at once); see {@link SpinThenBlockSelectStrategy}
 * @param protoReadTimeoutSeconds a connection whose request stays incomplete this long is closed (0: never)
 * @param queryBufferBudget bytes of incomplete requests all connections may hold together (0: a
 *     quarter of the maximum heap)
 * @param blockCacheBytes bytes of the block cache the store's lsm tables share (default a quarter
 *     of the maximum heap; 0 caches nothing)
 * @param writeBufferBytes bytes the memtables of the store's lsm tables may hold together (default a
 *     quarter of the maximum heap; 0: only each table's own memtable.size bounds it)
 * @param checkpointIntervalSeconds seconds between timed checkpoints (0: only by log size); see
 *     {@link StoreOptions#checkpointInterval()}
 * @param checkpointLogBytes log bytes written since the last checkpoint that start one
 *
 * <p>Thread safety: immutable.
 */
public record ServerConfig(
    Path dataDir,
    String bind,
    int respPort,
    int httpPort,
    int thriftPort,
    String defaultEngine,
    Durability durability,
    String password,
    String logLevel,
    long protoMaxBulkLen,
    int protoMaxMultibulkLen,
    int databases,
    int maxClients,
    int workerThreads,
    int ioThreads,
    int readThreads,
    int ioSpinMicros,
    int protoReadTimeoutSeconds,
    long queryBufferBudget,
    long blockCacheBytes,
    long writeBufferBytes,
    long checkpointIntervalSeconds,
    long checkpointLogBytes) {

  /** Every key a configuration file may hold, which is also every flag without its "--". */
  public static final List<String> KEYS = List.of(
      "data-dir", "bind", "resp-port", "http-port", "thrift-port", "default-engine", "durability",
      "password", "log-level", "proto-max-bulk-len", "proto-max-multibulk-len", "databases",
      "maxclients", "worker-threads", "io-threads", "read-threads", "io-spin-micros", "proto-read-timeout", "query-buffer-budget",
      "block-cache-size", "write-buffer-budget", "checkpoint-interval", "checkpoint-log-size");

  private static final List<String> LOG_LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");

  public ServerConfig {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(bind, "bind");
    Objects.requireNonNull(durability, "durability");
    Objects.requireNonNull(logLevel, "logLevel");
    requirePort("resp-port", respPort);
    requirePort("http-port", httpPort);
    requirePort("thrift-port", thriftPort);
    require(!bind.isBlank(), "bind", "must not be empty");
    require(LOG_LEVELS.contains(logLevel.toLowerCase(Locale.ROOT)), "log-level",
        "'" + logLevel + "' is not one of " + String.join(", ", LOG_LEVELS));
    require(protoMaxBulkLen >= 1024 && protoMaxBulkLen <= Integer.MAX_VALUE - 16, "proto-max-bulk-len",
        "must be from 1024 to " + (Integer.MAX_VALUE - 16) + ", was " + protoMaxBulkLen);
    require(protoMaxMultibulkLen >= 16 && protoMaxMultibulkLen <= 64 * 1024 * 1024,
        "proto-max-multibulk-len", "must be from 16 to 67108864, was " + protoMaxMultibulkLen);
    require(databases >= 1 && databases <= 1_000_000, "databases",
        "must be from 1 to 1000000, was " + databases);
    require(maxClients >= 1, "maxclients", "must be >= 1, was " + maxClients);
    require(workerThreads >= 1 && workerThreads <= 4096, "worker-threads",
        "must be from 1 to 4096, was " + workerThreads);
    require(ioThreads >= 0 && ioThreads <= 1024, "io-threads", "must be from 0 to 1024, was " + ioThreads);
    require(readThreads >= -1 && readThreads <= 1024, "read-threads",
        "must be 'auto' or from 0 to 1024, was " + readThreads);
    require(ioSpinMicros >= 0 && ioSpinMicros <= 10_000, "io-spin-micros",
        "must be from 0 to 10000, was " + ioSpinMicros);
    require(protoReadTimeoutSeconds >= 0, "proto-read-timeout", "must be >= 0, was " + protoReadTimeoutSeconds);
    require(queryBufferBudget == 0 || queryBufferBudget >= 1024 * 1024, "query-buffer-budget",
        "must be 0 or at least 1mb, was " + queryBufferBudget);
    require(blockCacheBytes >= 0, "block-cache-size", "must be >= 0, was " + blockCacheBytes);
    require(writeBufferBytes == 0 || writeBufferBytes >= 1024 * 1024, "write-buffer-budget",
        "must be 0 or at least 1mb, was " + writeBufferBytes);
    require(checkpointIntervalSeconds >= 0 && checkpointIntervalSeconds <= 86_400L * 365, "checkpoint-interval",
        "must be from 0 to 31536000 seconds, was " + checkpointIntervalSeconds);
    require(checkpointLogBytes >= 1024 * 1024, "checkpoint-log-size",
        "must be at least 1mb, was " + checkpointLogBytes);
    if (password != null && password.isEmpty()) {
      password = null;
    }
  }

  /**
   * The event loops to run on {@code cores} cores: {@code io-threads}, or by default half the cores
   * (at least one). On a small machine the clients, the store's background threads and the read
   * helpers need the other cores: one loop on 2 cores beat two loops in the unpipelined cases and
   * gave Redis-level p99 latencies (docs/benchmarks.md).
   */
  public int eventLoops(int cores) {
    return ioThreads > 0 ? ioThreads : Math.max(1, cores / 2);
  }

  /** The read helper threads to run on {@code cores} cores: {@code read-threads}, or the cores the event loops leave. */
  public int readHelpers(int cores) {
    return readThreads >= 0 ? readThreads : Math.max(0, cores - eventLoops(cores));
  }

  public static ServerConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  private static void requirePort(String name, int port) {
    require(port >= -1 && port <= 65535, name, "must be from -1 (off) to 65535, was " + port);
  }

  private static void require(boolean ok, String key, String message) {
    if (!ok) {
      throw new InvalidArgumentException(key, message);
    }
  }

  /** Same settings, password hidden: safe to log. */
  @Override
  public String toString() {
    return "ServerConfig[dataDir=" + dataDir + ", bind=" + bind + ", respPort=" + respPort + ", httpPort="
        + httpPort + ", thriftPort=" + thriftPort + ", defaultEngine=" + defaultEngine + ", durability="
        + durability + ", password=" + (password == null ? "none" : "***") + ", logLevel=" + logLevel
        + ", protoMaxBulkLen=" + protoMaxBulkLen + ", protoMaxMultibulkLen=" + protoMaxMultibulkLen
        + ", databases=" + databases + ", maxClients=" + maxClients + ", workerThreads=" + workerThreads
        + ", ioThreads=" + ioThreads + ", readThreads=" + readThreads + ", ioSpinMicros=" + ioSpinMicros + ", protoReadTimeoutSeconds=" + protoReadTimeoutSeconds
        + ", queryBufferBudget=" + queryBufferBudget + ", blockCacheBytes=" + blockCacheBytes
        + ", writeBufferBytes=" + writeBufferBytes + ", checkpointIntervalSeconds="
        + checkpointIntervalSeconds + ", checkpointLogBytes=" + checkpointLogBytes + "]";
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

  /** Collects settings by key; {@link #build()} validates. Thread safety: confined. */
  public static final class Builder {
    private Path dataDir = Path.of("data");
    private String bind = "127.0.0.1";
    private int respPort = 6379;
    private int httpPort = 8080;
    private int thriftPort = 9090;
    private String defaultEngine;
    private Durability durability = Durability.SYNC;
    private String password;
    private String logLevel = "info";
    private long protoMaxBulkLen = 512L * 1024 * 1024;
    private int protoMaxMultibulkLen = 1024 * 1024;
    private int databases = 16;
    private int maxClients = 10_000;
    private int workerThreads = 256;
    private int ioThreads;
    private int readThreads = -1;
    private int ioSpinMicros = 50;
    private int protoReadTimeoutSeconds = 60;
    private long queryBufferBudget;
    private long blockCacheBytes = StoreOptions.defaultBlockCacheBytes();
    private long writeBufferBytes = StoreOptions.defaultWriteBufferBytes();
    private long checkpointIntervalSeconds = StoreOptions.defaults().checkpointInterval().toSeconds();
    private long checkpointLogBytes = StoreOptions.defaults().checkpointLogBytes();

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
     * Sets one setting by its key.
     *
     * @throws InvalidArgumentException for an unknown key or a value of the wrong form
     */
    public Builder set(String key, String value) {
      String v = value == null ? "" : value.trim();
      switch (key) {
        case "data-dir" -> dataDir = Path.of(v);
        case "bind" -> bind = v;
        case "resp-port" -> respPort = (int) number(key, v, false);
        case "http-port" -> httpPort = (int) number(key, v, false);
        case "thrift-port" -> thriftPort = (int) number(key, v, false);
        case "default-engine" -> defaultEngine = v.isEmpty() || v.equalsIgnoreCase("auto") ? null : v.toLowerCase(Locale.ROOT);
        case "durability" -> durability = Durability.parse(v);
        case "password" -> password = v.isEmpty() ? null : value;
        case "log-level" -> logLevel = v.toLowerCase(Locale.ROOT);
        case "proto-max-bulk-len" -> protoMaxBulkLen = number(key, v, true);
        case "proto-max-multibulk-len" -> protoMaxMultibulkLen = (int) number(key, v, false);
        case "databases" -> databases = (int) number(key, v, false);
        case "maxclients" -> maxClients = (int) number(key, v, false);
        case "worker-threads" -> workerThreads = (int) number(key, v, false);
        case "io-threads" -> ioThreads = (int) number(key, v, false);
        case "read-threads" -> readThreads = v.equalsIgnoreCase("auto") ? -1 : nonNegative(key, number(key, v, false));
        case "io-spin-micros" -> ioSpinMicros = (int) number(key, v, false);
        case "proto-read-timeout" -> protoReadTimeoutSeconds = (int) number(key, v, false);
        case "query-buffer-budget" -> queryBufferBudget = number(key, v, true);
        case "block-cache-size" -> blockCacheBytes = number(key, v, true);
        case "write-buffer-budget" -> writeBufferBytes = number(key, v, true);
        case "checkpoint-interval" -> checkpointIntervalSeconds = number(key, v, false);
        case "checkpoint-log-size" -> checkpointLogBytes = number(key, v, true);
        default -> throw new InvalidArgumentException(
            "setting", "unknown key '" + key + "'; known keys: " + String.join(", ", KEYS));
      }
      return this;
    }

    public ServerConfig build() {
      return new ServerConfig(
          dataDir, bind, respPort, httpPort, thriftPort, defaultEngine, durability, password, logLevel,
          protoMaxBulkLen, protoMaxMultibulkLen, databases, maxClients, workerThreads, ioThreads,
          readThreads, ioSpinMicros, protoReadTimeoutSeconds, queryBufferBudget, blockCacheBytes,
          writeBufferBytes, checkpointIntervalSeconds, checkpointLogBytes);
    }

    /** {@code n}, which a key without an "auto" number must not give below 0. */
    private static int nonNegative(String key, long n) {
      if (n < 0) {
        throw new InvalidArgumentException(key, "must be 'auto' or from 0 to 1024, was " + n);
      }
      return (int) n;
    }

    /** An integer, or with {@code sizes} a byte size with an optional k/kb/m/mb/g/gb suffix (x1024). */
    private static long number(String key, String v, boolean sizes) {
      String s = v.toLowerCase(Locale.ROOT);
      long unit = 1;
      if (sizes) {
        String[][] suffixes = {{"gb", "g"}, {"mb", "m"}, {"kb", "k"}};
        long[] units = {1L << 30, 1L << 20, 1L << 10};
        outer:
        for (int i = 0; i < suffixes.length; i++) {
          for (String suf : suffixes[i]) {
            if (s.endsWith(suf)) {
              s = s.substring(0, s.length() - suf.length()).trim();
              unit = units[i];
              break outer;
            }
          }
        }
      }
      try {
        long n = Long.parseLong(s);
        if (sizes && n > Long.MAX_VALUE / unit) {
          throw new NumberFormatException(v);
        }
        long result = n * unit;
        if (!sizes && (result < Integer.MIN_VALUE || result > Integer.MAX_VALUE)) {
          throw new NumberFormatException(v);
        }
        return result;
      } catch (NumberFormatException e) {
        throw new InvalidArgumentException(key, "'" + v + "' is not " + (sizes ? "a size" : "an integer"));
      }
    }
  }
}
