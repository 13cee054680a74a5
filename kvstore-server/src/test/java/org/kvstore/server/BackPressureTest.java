package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** A client that never reads its replies cannot make the server buffer them without bound. */
class BackPressureTest {
  @TempDir static Path dir;
  static KVStoreServer server;

  @BeforeAll
  static void start() {
    server = TestServers.start(dir);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void clientThatNeverReads_boundsServerBuffers_andOthersAreServed() throws Exception {
    byte[] big = new byte[1 << 20];
    try (Jedis j = new Jedis("127.0.0.1", server.respPort())) {
      j.set("big".getBytes(StandardCharsets.US_ASCII), big);
    }
    long before = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
    try (Socket s = new Socket("127.0.0.1", server.respPort())) {
      s.setReceiveBufferSize(64 * 1024);
      OutputStream out = s.getOutputStream();
      byte[] get = "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n".getBytes(StandardCharsets.US_ASCII);
      // 2,000 replies of 1 MiB = 2 GiB if the server buffered them all.
      byte[] batch = new byte[get.length * 100];
      for (int i = 0; i < 100; i++) {
        System.arraycopy(get, 0, batch, i * get.length, get.length);
      }
      for (int i = 0; i < 20; i++) {
        out.write(batch);
      }
      out.flush();
      Thread.sleep(1500);
      long used = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() - before;
      assertThat(used).as("direct memory held for the stalled client").isLessThan(64L << 20);
      try (Jedis other = new Jedis("127.0.0.1", server.respPort())) {
        long t0 = System.nanoTime();
        assertThat(other.ping()).isEqualTo("PONG");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1000);
      }
    }
  }
}
