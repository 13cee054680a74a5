package org.kvstore.bench.load.preset;

import java.util.Locale;
import org.kvstore.bench.load.driver.Driver;
import org.kvstore.bench.load.driver.HttpDriver;
import org.kvstore.bench.load.driver.RespDriver;
import org.kvstore.bench.load.driver.ThriftDriver;
import org.kvstore.bench.load.server.ServerHandle;

/**
 * A driver for one protocol of a started server: {@code resp}, {@code http} or {@code thrift}.
 *
 * <p>Thread safety: stateless.
 */
final class ServerDrivers {
  private ServerDrivers() {}

  static Driver open(String protocol, ServerHandle server) {
    return switch (protocol.toLowerCase(Locale.ROOT)) {
      case "resp" -> new RespDriver(ServerHandle.HOST, server.respPort(), "resp");
      case "http" -> new HttpDriver(ServerHandle.HOST, server.httpPort());
      case "thrift" -> new ThriftDriver(ServerHandle.HOST, server.thriftPort());
      default -> throw new IllegalArgumentException("protocol '" + protocol + "' is not one of resp, http, thrift");
    };
  }
}
