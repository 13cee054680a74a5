package org.kvstore.server.warmup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * An HTTP client of the key routes ({@code /v1/dbs/default/tables/0/keys/{key}}): per round a PUT
 * of a 3- or 500-byte value, a GET of it, a GET of a missing key and a DELETE, on one kept-alive
 * connection.
 *
 * <p>Thread safety: confined.
 */
final class HttpExerciser implements Exerciser {
  private static final byte[] SMALL = {'x', 'x', 'x'};
  private static final byte[] LARGE = filled(500);

  private final String base;
  private final SplittableRandom random;
  private long rounds;

  HttpExerciser(InetSocketAddress server, long seed) {
    base = "http://127.0.0.1:" + server.getPort() + "/v1/dbs/default/tables/0/keys/";
    random = new SplittableRandom(seed);
  }

  @Override
  public String protocol() {
    return "HTTP";
  }

  @Override
  public int round() throws IOException {
    String key = "http:" + random.nextInt(10_000);
    byte[] value = rounds++ % 2 == 0 ? SMALL : LARGE;
    expect("PUT", key, value, 200, 201, 204);
    int got = expect("GET", key, null, 200);
    if (got != value.length) {
      throw new WarmupException("HTTP GET of " + key + " on the scratch server returned " + got + " bytes, not "
          + value.length);
    }
    expect("GET", "missing:" + random.nextInt(10_000), null, 404);
    expect("DELETE", key, null, 200, 204);
    return 4;
  }

  /** Sends one request and reads the whole reply; returns the body's length. */
  private int expect(String method, String key, byte[] body, int... statuses) throws IOException {
    HttpURLConnection c = (HttpURLConnection) URI.create(base + key).toURL().openConnection();
    c.setRequestMethod(method);
    c.setConnectTimeout(10_000);
    c.setReadTimeout(30_000);
    if (body != null) {
      c.setDoOutput(true);
      c.setFixedLengthStreamingMode(body.length);
      c.setRequestProperty("Content-Type", "application/octet-stream");
      try (OutputStream o = c.getOutputStream()) {
        o.write(body);
      }
    }
    int status = c.getResponseCode();
    int length = 0;
    // Reading the body to its end and closing the stream keeps the connection for the next request.
    try (InputStream i = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
      if (i != null) {
        length = i.readAllBytes().length;
      }
    }
    for (int s : statuses) {
      if (s == status) {
        return length;
      }
    }
    throw new WarmupException("HTTP " + method + " " + key + " on the scratch server answered " + status);
  }

  private static byte[] filled(int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) 'x');
    return b;
  }

  @Override
  public void close() {
    // HttpURLConnection keeps its idle connections in the JDK's cache, which closes them itself.
  }
}
