package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kvstore.server.output.GuardedConnection;

/**
 * When the worker sending a streamed reply waits for its client to read, and when it goes on, on a
 * local connection with an output guard (4 MiB hard, 512 KiB soft). What the client holds
 * is set with the guard's reservations.
 */
class ReplyStreamerTest {
  private static final int PART = ReplyArrayBuilder.PART_BYTES;

  private GuardedConnection connection;

  /** A connection whose client may stay over its soft limit for {@code softSeconds}. */
  private void connect(int softSeconds) throws Exception {
    connection = new GuardedConnection("RESP", softSeconds);
  }

  @AfterEach
  void close() throws Exception {
    if (connection != null) {
      connection.close();
    }
  }

  @Test
  void send_clientLeftBetweenTheLowMarkAndItsSoftLimit_goesOn() throws Exception {
    connect(60);
    // Seventeen parts handed to the event loop and not written yet, over the high-water mark, and
    // the one sent now: the worker waits.
    assertThat(connection.guard().tryReserve(18L * PART)).isTrue();
    CompletableFuture<Boolean> sent = sendAPartOnAWorker();
    Thread.sleep(200);
    assertThat(sent).as("waiting while the client holds 17 parts").isNotDone();
    // The event loop wrote them and the socket took all but 400 KiB; the client reads no more. It is
    // over the low-water mark and under its soft limit, where no limit would ever disconnect it.
    connection.guard().release(17L * PART - (400 << 10));
    assertThat(sent.get(10, TimeUnit.SECONDS)).as("the command goes on").isTrue();
  }

  @Test
  void send_clientStoppedOverItsSoftLimit_waitsUntilItIsDisconnected() throws Exception {
    connect(2);
    assertThat(connection.guard().tryReserve(18L * PART)).isTrue();
    CompletableFuture<Boolean> sent = sendAPartOnAWorker();
    Thread.sleep(200);
    assertThat(sent).as("waiting while the client holds 17 parts").isNotDone();
    connection.guard().release(17L * PART - (600 << 10)); // the client holds 600 KiB and reads no more
    Thread.sleep(200);
    assertThat(sent).as("waiting for the client to read").isNotDone();
    assertThat(sent.get(10, TimeUnit.SECONDS)).as("the command stops once the soft limit closed the client")
        .isFalse();
    assertThat(connection.limits().disconnections()).isEqualTo(1);
  }

  @Test
  void send_clientDrainsToTheLowMark_goesOn() throws Exception {
    connect(60);
    assertThat(connection.guard().tryReserve(18L * PART)).isTrue();
    CompletableFuture<Boolean> sent = sendAPartOnAWorker();
    Thread.sleep(200);
    assertThat(sent).isNotDone();
    connection.guard().release(17L * PART - ReplyStreamer.RESUME_BYTES);
    assertThat(sent.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(connection.limits().disconnections()).isZero();
  }

  /** Sends a part, reserved with the others, from a thread other than the event loop, as a command's worker does. */
  private CompletableFuture<Boolean> sendAPartOnAWorker() {
    ReplyStreamer streamer = new ReplyStreamer(connection.ctx(), connection.guard());
    CompletableFuture<Boolean> sent = new CompletableFuture<>();
    Thread worker = new Thread(() -> sent.complete(streamer.send(new byte[PART], PART, PART)));
    worker.setDaemon(true);
    worker.start();
    return sent;
  }
}
