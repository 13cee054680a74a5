package org.kvstore.bench.load.preset;

import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import org.kvstore.Durability;
import org.kvstore.bench.load.driver.Driver;
import org.kvstore.bench.load.driver.HttpDriver;
import org.kvstore.bench.load.driver.LocalStores;
import org.kvstore.bench.load.driver.RespDriver;
import org.kvstore.bench.load.driver.StoreSizes;
import org.kvstore.bench.load.driver.ThriftDriver;
import org.kvstore.bench.load.server.InProcessServer;
import org.kvstore.bench.load.server.RedisServerProcess;
import org.kvstore.bench.load.server.ServerHandle;

/**
 * What the {@code run} command loads, by name: a local store ({@code lsm}, {@code bplus},
 * {@code memory}, {@code rocksdb}); a running server ({@code resp://HOST:PORT},
 * {@code http://HOST:PORT}, {@code thrift://HOST:PORT}); a kvstore-server this process starts in
 * itself ({@code server:resp}, {@code server:http}, {@code server:thrift}); or a Redis server it
 * starts ({@code redis}).
 *
 * <p>Thread safety: immutable.
 */
public record Target(String spec) {

  /** A driver and what it needs closed after it (a started server). */
  public record Opened(Driver driver, AutoCloseable server) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      try {
        driver.close();
      } finally {
        if (server != null) {
          server.close();
        }
      }
    }
  }

  public Opened open(Path dir, Durability durability, StoreSizes sizes) throws Exception {
    String s = spec.trim().toLowerCase(Locale.ROOT);
    if (LocalStores.isLocal(s)) {
      return new Opened(LocalStores.open(s, dir, durability, sizes), null);
    }
    if (s.startsWith("server:")) {
      InProcessServer server = InProcessServer.start(dir, durability, null);
      try {
        return new Opened(ServerDrivers.open(s.substring("server:".length()), server), server);
      } catch (RuntimeException e) {
        server.close();
        throw e;
      }
    }
    if (s.equals("redis")) {
      RedisServerProcess redis = RedisServerProcess.start(dir, dir.resolve("redis.log"));
      return new Opened(new RespDriver(ServerHandle.HOST, redis.respPort(), "redis"), redis);
    }
    URI uri = URI.create(spec.trim());
    if (uri.getHost() == null || uri.getPort() < 0) {
      throw new IllegalArgumentException("target '" + spec + "' is not lsm, bplus, memory, rocksdb, redis, "
          + "server:resp|http|thrift, or resp|http|thrift://HOST:PORT");
    }
    return switch (uri.getScheme().toLowerCase(Locale.ROOT)) {
      case "resp", "redis" -> new Opened(new RespDriver(uri.getHost(), uri.getPort(), "resp"), null);
      case "http" -> new Opened(new HttpDriver(uri.getHost(), uri.getPort()), null);
      case "thrift" -> new Opened(new ThriftDriver(uri.getHost(), uri.getPort()), null);
      default -> throw new IllegalArgumentException("target scheme '" + uri.getScheme() + "' is not resp, http or thrift");
    };
  }
}
