package org.kvstore.bench.load.server;

import java.nio.file.Path;
import java.util.Locale;
import org.kvstore.Durability;
import org.kvstore.server.KVStoreServer;
import org.kvstore.server.ServerConfig;

/**
 * kvstore-server in this JVM, on loopback and ephemeral ports, RESP, HTTP and Thrift on. Quick to
 * start (tests, tiny runs); its threads share the machine with the load generator's.
 *
 * <p>Thread safety: thread-safe.
 */
public final class InProcessServer implements ServerHandle {
  private final KVStoreServer server;

  private InProcessServer(KVStoreServer server) {
    this.server = server;
  }

  public static InProcessServer start(Path dataDir, Durability durability, String engine) {
    ServerConfig.Builder b = ServerConfig.builder()
        .set("data-dir", dataDir.toString())
        .set("bind", HOST)
        .set("resp-port", "0")
        .set("http-port", "0")
        .set("thrift-port", "0")
        .set("durability", durability.name().toLowerCase(Locale.ROOT))
        .set("log-level", "warn");
    if (engine != null) {
      b.set("default-engine", engine);
    }
    return new InProcessServer(KVStoreServer.start(b.build()));
  }

  @Override
  public String name() {
    return "kvstore";
  }

  @Override
  public int respPort() {
    return server.respPort();
  }

  @Override
  public int httpPort() {
    return server.httpPort();
  }

  @Override
  public int thriftPort() {
    return server.thriftPort();
  }

  @Override
  public void close() {
    server.close();
  }
}
