package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;

/**
 * Requests no well-behaved client sends, over raw sockets: bodies over the limit by Content-Length
 * (answered before the body is sent) and chunked, half-sent and trickled requests (bounded by the
 * read timeout, here 1 s), malformed request lines and escapes, and more connections than
 * maxclients.
 */
class BadInputTest {
  static final int LIMIT = 64 * 1024;

  @TempDir static Path dir;
  static KVStoreServer server;

  @BeforeAll
  static void start() {
    server = KVStoreServer.start(HttpServers.config(dir).set("proto-read-timeout", "1").set("maxclients", "20").build());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", server.httpPort());
    s.setSoTimeout(5000);
    return s;
  }

  /** Everything the server sends until it closes the connection (or 5 s pass). */
  static String readAll(Socket s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[8192];
    try {
      for (int n; (n = in.read(buf)) > 0; ) {
        out.write(buf, 0, n);
      }
    } catch (SocketTimeoutException e) {
      out.write("<timeout>".getBytes(StandardCharsets.US_ASCII));
    } catch (IOException reset) {
      // connection reset after the response: what was read is the answer
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  static String exchange(String request) throws IOException {
    try (Socket s = connect()) {
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      return readAll(s);
    }
  }

  @Test
  void contentLengthOverLimit_valueTooLargeBeforeTheBody() throws IOException {
    String r = exchange("PUT /v1/dbs/default/tables/0/keys/huge HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n");
    assertThat(r).startsWith("HTTP/1.1 413").contains("value_too_large").contains("connection: close").doesNotContain("<timeout>");
    assertThat(server.store().get("default", "0", "huge")).isNull();
  }

  @Test
  void expectContinueOverLimit_valueTooLarge() throws IOException {
    String r = exchange("PUT /v1/dbs/default/tables/0/keys/huge2 HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n"
        + "Expect: 100-continue\r\n\r\n");
    assertThat(r).startsWith("HTTP/1.1 413").contains("value_too_large").doesNotContain("<timeout>");
  }

  @Test
  void chunkedOverLimit_cutOff() throws IOException {
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      out.write("PUT /v1/dbs/default/tables/0/keys/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      String chunk = Integer.toHexString(16 * 1024) + "\r\n" + "x".repeat(16 * 1024) + "\r\n";
      try {
        for (int i = 0; i < 5; i++) {
          out.write(chunk.getBytes(StandardCharsets.US_ASCII));
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      } catch (IOException closedEarly) {
        // the server may close before the last chunk
      }
      assertThat(readAll(s)).startsWith("HTTP/1.1 413").contains("value_too_large");
    }
    assertThat(server.store().get("default", "0", "chunky")).isNull();
  }

  @Test
  void chunkedWithinLimit_storedVerbatim() throws IOException {
    String r = exchange("PUT /v1/dbs/default/tables/0/keys/chunked-ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        + "Connection: close\r\n\r\n5\r\nab\r\nc\r\n3\r\n\u0000\u00ff\n\r\n0\r\n\r\n");
    assertThat(r).startsWith("HTTP/1.1 201");
    assertThat(server.store().get("default", "0", "chunked-ok"))
        .isEqualTo(new byte[] {'a', 'b', '\r', '\n', 'c', 0, (byte) 0xFF, '\n'});
  }

  @Test
  void halfSentRequest_timesOutWith408() throws IOException {
    long start = System.nanoTime();
    try (Socket s = connect()) {
      s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      String r = readAll(s);
      assertThat(r).startsWith("HTTP/1.1 408").contains("request_timeout");
    }
    assertThat((System.nanoTime() - start) / 1_000_000).isBetween(900L, 4000L);
  }

  @Test
  void trickledRequest_closedAfterTheTimeout() throws Exception {
    long start = System.nanoTime();
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      byte[] request = "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII);
      boolean closed = false;
      for (int i = 0; i < request.length - 4 && !closed; i++) {
        try {
          out.write(request[i]);
          out.flush();
        } catch (IOException e) {
          closed = true;
        }
        Thread.sleep(100);
        if (s.getInputStream().available() > 0) {
          break;
        }
      }
      assertThat(readAll(s)).startsWith("HTTP/1.1 408");
    }
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(4000L);
  }

  @Test
  void badPercentEscape_invalidArgument() throws IOException {
    String r = exchange("GET /v1/dbs/default/tables/0/keys/bad%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertThat(r).startsWith("HTTP/1.1 400").contains("invalid_argument");
  }

  @Test
  void garbageRequestLine_badRequestAndClosed() throws IOException {
    String r = exchange("HELLO\r\n\r\n");
    assertThat(r).startsWith("HTTP/1.1 400").contains("invalid_argument").doesNotContain("<timeout>");
  }

  @Test
  void moreConnectionsThanMaxclients_refused() throws IOException {
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < 20; i++) {
        Socket s = connect();
        open.add(s);
        s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getInputStream().read(new byte[4096]);
      }
      String r = exchange("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(r).startsWith("HTTP/1.1 503").contains("too_many_connections");
    } finally {
      for (Socket s : open) {
        s.close();
      }
      // The server sees the closes a little later; other tests must not find the limit still reached.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (server.httpServer().openConnections() > 0 && System.nanoTime() < deadline) {
        sleep(10);
      }
      assertThat(server.httpServer().openConnections()).as("connections the server still holds").isZero();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  @Test
  void pipelinedRequests_answeredInOrder() throws IOException {
    StringBuilder req = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      req.append("PUT /v1/dbs/default/tables/0/keys/pipe").append(i).append(" HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n")
          .append(i);
    }
    req.append("GET /v1/dbs/default/tables/0/keys:get HTTP/1.1\r\nHost: x\r\n\r\n");
    req.append("GET /v1/dbs/default/tables/0/keys/pipe4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    String r = exchange(req.toString());
    assertThat(r.split("HTTP/1.1 ", -1)).hasSize(8);
    assertThat(r).containsSubsequence("201", "201", "201", "201", "201", "405", "200");
    assertThat(r).endsWith("4");
  }
}
