package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;

/** Without --http-cors-origin no response carries CORS headers; without --password no route needs one. */
class CorsOffTest {
  @TempDir Path dir;

  @Test
  void defaults_noCorsHeadersNoAuth() {
    try (KVStoreServer server = HttpServers.start(dir)) {
      HttpTestClient http = new HttpTestClient(server.httpPort());
      HttpResponse<byte[]> r = http.get("/v1/dbs", "Origin", "https://app.example.com");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().map().keySet()).noneMatch(h -> h.toLowerCase().startsWith("access-control-"));
      HttpResponse<byte[]> preflight = http.send("OPTIONS", "/v1/dbs", null, "Origin", "https://app.example.com");
      assertThat(preflight.headers().map().keySet()).noneMatch(h -> h.toLowerCase().startsWith("access-control-"));
    }
  }
}
