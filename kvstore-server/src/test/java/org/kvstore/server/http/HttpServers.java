package org.kvstore.server.http;

import java.nio.file.Path;
import org.kvstore.server.KVStoreServer;
import org.kvstore.server.ServerConfig;
import org.kvstore.server.TestServers;

/** In-process servers with HTTP on a free port and memory tables (expiry is exact there). */
final class HttpServers {
  private HttpServers() {}

  static ServerConfig.Builder config(Path dir) {
    return TestServers.config(dir)
        .set("http-port", "0")
        .set("default-engine", "memory")
        .set("proto-max-bulk-len", "64kb");
  }

  static KVStoreServer start(Path dir) {
    return KVStoreServer.start(config(dir).build());
  }
}
