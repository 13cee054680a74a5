package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
    try (Socket s = new Socket("127.0.0.1", server.respPort());
        Jedis observer = new Jedis("127.0.0.1", server.respPort())) {
      long processedBefore = processed(observer);
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

      // Wait (polling, with a deadline) until the server has answered some of the GETs and then
      // stopped: the count of processed commands holds still while the client reads nothing.
      // Memory is checked at every poll, so a server that buffers without bound fails fast.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      long observed = 0;
      long last = -1;
      int stillPolls = 0;
      while (stillPolls < STILL_POLLS) {
        assertThat(System.nanoTime()).as("the stalled client's GETs never stopped").isLessThan(deadline);
        long used = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() - before;
        assertThat(used).as("direct memory held for the stalled client").isLessThan(64L << 20);
        long answered = processed(observer) - processedBefore - ++observed;
        stillPolls = answered > 0 && answered == last ? stillPolls + 1 : 0;
        last = answered;
        Thread.onSpinWait();
      }
      assertThat(last).as("GETs answered to a client that reads nothing").isLessThan(2000);

      try (Jedis other = new Jedis("127.0.0.1", server.respPort())) {
        long t0 = System.nanoTime();
        assertThat(other.ping()).isEqualTo("PONG");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1000);
      }
    }
  }

  /** Polls of INFO in a row that must see the stalled client's count unchanged. */
  private static final int STILL_POLLS = 200;

  /** INFO's total_commands_processed (the INFO call itself included). */
  private static long processed(Jedis j) {
    for (String line : j.info("stats").split("\r\n")) {
      if (line.startsWith("total_commands_processed:")) {
        return Long.parseLong(line.substring("total_commands_processed:".length()).trim());
      }
    }
    throw new AssertionError("INFO stats has no total_commands_processed");
  }
}
