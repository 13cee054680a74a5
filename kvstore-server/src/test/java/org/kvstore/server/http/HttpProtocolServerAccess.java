package org.kvstore.server.http;

import org.kvstore.server.KVStoreServer;

/** Reaches the routes of a running server's HTTP front end, for tests. */
final class HttpProtocolServerAccess {
  private HttpProtocolServerAccess() {}

  static HttpRouter router(KVStoreServer server) {
    return server.httpServer().router();
  }
}
