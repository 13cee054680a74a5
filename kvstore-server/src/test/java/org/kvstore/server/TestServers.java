package org.kvstore.server;

import java.nio.file.Path;
import org.kvstore.Durability;

/**
 * Starts in-process servers for tests: loopback, any free port, small thread pools, two event loops
 * and a read helper (so every test's pipelined reads also run on a helper thread).
 */
public final class TestServers {
  private TestServers() {}

  public static ServerConfig.Builder config(Path dataDir) {
    return ServerConfig.builder()
        .set("data-dir", dataDir.toString())
        .set("resp-port", "0")
        .set("http-port", "-1")
        .set("thrift-port", "-1")
        .set("io-threads", "2")
        .set("read-threads", "1")
        .set("worker-threads", "16");
  }

  public static KVStoreServer start(Path dataDir) {
    return KVStoreServer.start(config(dataDir).build());
  }

  public static KVStoreServer start(Path dataDir, Durability durability) {
    return KVStoreServer.start(config(dataDir).set("durability", durability.name()).build());
  }

  /** The test scale: default, crash, soak or bench. */
  public static String scale() {
    return System.getProperty("kvstore.test.scale", "default");
  }
}
