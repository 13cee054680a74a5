package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kvstore.server.output.GuardedConnection;

/**
 * When the worker writing a streamed body waits for its client to read, and when it goes on, on a
 * local connection with an output guard (4 MiB hard, 512 KiB soft). What the client holds
 * is set with the guard's reservations.
 */
class HttpBodyStreamTest {
  private static final int PART = HttpBodyStream.PART_BYTES;

  private GuardedConnection connection;

  /** A connection whose client may stay over its soft limit for {@code softSeconds}. */
  private void connect(int softSeconds) throws Exception {
    connection = new GuardedConnection("HTTP", softSeconds);
  }

  @AfterEach
  void close() throws Exception {
    if (connection != null) {
      connection.close();
    }
  }

  @Test
  void write_clientLeftBetweenTheLowMarkAndItsSoftLimit_goesOn() throws Exception {
    connect(60);
    // Seventeen parts handed to the event loop and not written yet, over the high-water mark: the
    // writer waits.
    assertThat(connection.guard().tryReserve(17L * PART)).isTrue();
    CompletableFuture<Void> written = writeAPartOnAWorker();
    Thread.sleep(200);
    assertThat(written).as("waiting while the client holds 17 parts").isNotDone();
    // The socket took all but 400 KiB and the client reads no more: under its soft limit.
    connection.guard().release(17L * PART - (400 << 10));
    written.get(10, TimeUnit.SECONDS);
  }

  @Test
  void write_clientStoppedOverItsSoftLimit_waitsUntilItIsDisconnected() throws Exception {
    connect(2);
    assertThat(connection.guard().tryReserve(17L * PART)).isTrue();
    CompletableFuture<Void> written = writeAPartOnAWorker();
    Thread.sleep(200);
    assertThat(written).as("waiting while the client holds 17 parts").isNotDone();
    connection.guard().release(17L * PART - (600 << 10)); // the client holds 600 KiB and reads no more
    Thread.sleep(200);
    assertThat(written).as("waiting for the client to read").isNotDone();
    try {
      written.get(10, TimeUnit.SECONDS);
      throw new AssertionError("the writer went on after the soft limit closed the client");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(HttpBodyStream.ClientGoneException.class);
    }
    assertThat(connection.limits().disconnections()).isEqualTo(1);
  }

  /** Writes a part and a byte, which sends the part, from a thread other than the event loop. */
  private CompletableFuture<Void> writeAPartOnAWorker() {
    HttpBodyStream body = new HttpBodyStream(connection.ctx(), connection.guard(),
        () -> new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
    CompletableFuture<Void> written = new CompletableFuture<>();
    Thread worker = new Thread(() -> {
      try {
        body.write(new byte[PART + 1]);
        written.complete(null);
      } catch (IOException e) {
        written.completeExceptionally(e);
      }
    });
    worker.setDaemon(true);
    worker.start();
    return written;
  }
}
