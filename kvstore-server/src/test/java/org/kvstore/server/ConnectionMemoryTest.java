package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Memory bounds across connections: a request left half-sent is cut off after the read timeout, and
 * many clients that each send a large bulk slowly cannot together hold more than the server-wide
 * query buffer budget.
 */
class ConnectionMemoryTest {
  @TempDir Path dir;

  @Test
  void halfSentRequest_isClosedAfterReadTimeout_butIdleCompleteConnectionStays() throws Exception {
    try (KVStoreServer server = KVStoreServer.start(
            TestServers.config(dir).set("proto-read-timeout", "1").build());
        Socket half = new Socket("127.0.0.1", server.respPort());
        Jedis idle = new Jedis("127.0.0.1", server.respPort())) {
      assertThat(idle.ping()).isEqualTo("PONG");
      half.getOutputStream().write("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\nabc".getBytes(StandardCharsets.US_ASCII));
      half.getOutputStream().flush();
      half.setSoTimeout(10_000);
      long t0 = System.nanoTime();
      assertThat(half.getInputStream().read()).as("server closes the half-sent connection").isEqualTo(-1);
      long waitedMs = (System.nanoTime() - t0) / 1_000_000;
      assertThat(waitedMs).isBetween(500L, 5_000L);
      Thread.sleep(1500); // idle with no request in progress: not a timeout
      assertThat(idle.ping()).isEqualTo("PONG");
      assertThat(server.queryBufferBytes()).isZero();
    }
  }

  @Test
  void manySlowLargeBulks_togetherStayWithinTheBudget() throws Exception {
    long budget = 16L << 20;
    int clients = 6;
    int declared = 8 << 20;
    int sent = 4 << 20; // 6 x 4 MiB = 24 MiB > 16 MiB budget
    try (KVStoreServer server = KVStoreServer.start(
        TestServers.config(dir).set("query-buffer-budget", "16mb").build())) {
      List<Socket> sockets = new ArrayList<>();
      try {
        byte[] chunk = new byte[64 * 1024];
        for (int c = 0; c < clients; c++) {
          Socket s = new Socket("127.0.0.1", server.respPort());
          s.setSoTimeout(10_000);
          sockets.add(s);
          s.getOutputStream().write(("*3\r\n$3\r\nSET\r\n$2\r\nk" + c + "\r\n$" + declared + "\r\n")
              .getBytes(StandardCharsets.US_ASCII));
        }
        int refused = 0;
        for (int c = 0; c < clients; c++) {
          OutputStream out = sockets.get(c).getOutputStream();
          try {
            for (int n = 0; n < sent; n += chunk.length) {
              out.write(chunk);
            }
            out.flush();
          } catch (java.io.IOException closed) {
            // the server closed this one while we were still sending
          }
          assertThat(server.queryBufferBytes()).isLessThanOrEqualTo(budget);
        }
        Thread.sleep(500);
        for (Socket s : sockets) {
          String reply = readSome(s);
          if (!reply.isEmpty()) {
            // The error reply, or a reset when our unsent bytes met the closed socket first.
            assertThat(reply).satisfiesAnyOf(
                r -> assertThat(r).startsWith("-ERR Protocol error: the server's query buffer budget is exhausted"),
                r -> assertThat(r).isEqualTo(CLOSED));
            refused++;
          }
        }
        assertThat(refused).as("connections refused for the budget").isBetween(1, clients - 1);
        assertThat(server.queryBufferBytes()).isLessThanOrEqualTo(budget).isGreaterThan(0);
        try (Jedis other = new Jedis("127.0.0.1", server.respPort())) {
          assertThat(other.set("small", "v")).isEqualTo("OK");
        }
      } finally {
        for (Socket s : sockets) {
          s.close();
        }
      }
      long deadline = System.currentTimeMillis() + 5_000;
      while (server.queryBufferBytes() > 0 && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      assertThat(server.queryBufferBytes()).as("released when the connections close").isZero();
    }
  }

  private static final String CLOSED = "<closed>";

  /** What arrives within a short wait: "" when nothing does, {@link #CLOSED} on end of stream or reset. */
  private static String readSome(Socket s) throws Exception {
    s.setSoTimeout(300);
    byte[] b = new byte[200];
    int n;
    try {
      n = s.getInputStream().read(b);
    } catch (java.net.SocketTimeoutException e) {
      return "";
    } catch (java.io.IOException e) {
      return CLOSED;
    }
    return n < 0 ? CLOSED : new String(b, 0, n, StandardCharsets.US_ASCII);
  }
}
