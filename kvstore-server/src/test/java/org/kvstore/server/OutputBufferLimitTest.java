package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Greedy and slow clients (RELIABILITY.md T10, issue 28): a server in a child JVM with a 96 MiB heap
 * and a store of about 440 MB, a hard output buffer limit of 4 MiB and a soft one of 512 KiB for 2 s.
 * A client that asks for more than the heap holds and does not read, or stops reading a pipeline of
 * replies, is disconnected (counted in INFO stats, a WARN line naming it), the server answers others
 * promptly meanwhile and never runs out of memory; a client that reads gets its large replies whole.
 * Index 2 holds {@value #BIG_KEYS} values of 1 MiB for HTTP multi-gets of many large values.
 */
class OutputBufferLimitTest {
  private static final int KEYS = 400_000;
  private static final int SMALL_KEYS = 20_000;
  private static final int KEY_BYTES = 100;
  private static final int VALUE_BYTES = 1024;
  private static final int BIG_KEYS = 8;
  private static final int BIG_VALUE_BYTES = 1 << 20;
  private static final String BIG_MULTI_GET = "/v1/dbs/default/tables/2/keys:get";

  @TempDir static Path dir;
  static ServerProcess server;
  static int port;
  static int httpPort;

  @BeforeAll
  static void start() throws Exception {
    server = ServerProcess.launchWithHeap("96m", "--data-dir", dir.toString(), "--resp-port", "0",
        "--http-port", "0", "--thrift-port", "-1", "--durability", "none",
        "--client-output-buffer-hard-limit", "4mb", "--client-output-buffer-soft-limit", "512kb",
        "--client-output-buffer-soft-seconds", "2");
    port = server.awaitPort();
    httpPort = server.httpPort();
    load(0, KEYS);
    load(1, SMALL_KEYS);
    loadBig();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server == null) {
      return;
    }
    try {
      // The disconnections' log lines, in the test report.
      server.stdout().stream().filter(l -> l.contains(" WARN ")).forEach(System.out::println);
      assertHealthy();
      server.sigterm();
      server.awaitExit();
    } finally {
      server.close();
    }
  }

  @Test
  void keysAll_neverRead_isDisconnectedAtTheHardLimit_andOthersAreServed() throws Exception {
    long before = disconnections();
    try (Socket greedy = slowReader()) {
      send(greedy, command("CLIENT", "SETNAME", "greedy-keys"), command("KEYS", "*"));
      awaitDisconnections(before + 1);
      assertClosedByServer(greedy);
    }
    assertLogged("closing RESP client", "name=greedy-keys", "cmd=keys", "client-output-buffer-hard-limit");
    assertHealthy();
  }

  @Test
  void mgetOfManyKeys_neverRead_isDisconnected() throws Exception {
    // 100,000 keys: a request of 11 MB (all 400,000 would be over the query buffer budget of this
    // small heap), a reply of 100 MB, more than the heap.
    long before = disconnections();
    try (Socket greedy = slowReader()) {
      String[] args = new String[100_001];
      args[0] = "MGET";
      for (int i = 0; i < 100_000; i++) {
        args[i + 1] = key(i);
      }
      send(greedy, command("CLIENT", "SETNAME", "greedy-mget"), command(args));
      awaitDisconnections(before + 1);
      assertClosedByServer(greedy);
    }
    assertLogged("closing RESP client", "name=greedy-mget", "cmd=mget");
    assertHealthy();
  }

  @Test
  void pipelinedGets_clientStopsReading_isDisconnectedAtTheSoftLimit() throws Exception {
    long before = disconnections();
    try (Socket greedy = slowReader()) {
      send(greedy, command("CLIENT", "SETNAME", "greedy-gets"));
      // 20,000 GETs of 1 KiB values: 20 MB of replies, none read. The server stops reading the
      // requests when the replies back up, so the sender blocks; it runs beside the test.
      Thread sender = new Thread(() -> {
        try {
          OutputStream out = new BufferedOutputStream(greedy.getOutputStream(), 64 * 1024);
          for (int i = 0; i < 20_000; i++) {
            out.write(command("GET", key(i)));
          }
          out.flush();
        } catch (IOException e) {
          // disconnected by the server
        }
      });
      sender.setDaemon(true);
      sender.start();
      awaitDisconnections(before + 1);
      assertClosedByServer(greedy);
      sender.join(10_000);
    }
    assertLogged("closing RESP client", "name=greedy-gets", "client-output-buffer-soft-limit");
    assertHealthy();
  }

  @Test
  void keysAndMget_readByTheClient_completeWhole_evenAnMgetOverTheLimit() throws Exception {
    long before = disconnections();
    try (Socket reader = new Socket("127.0.0.1", port)) {
      reader.setSoTimeout(30_000);
      send(reader, command("SELECT", "1"));
      assertThat(readN(reader, 5)).isEqualTo("+OK\r\n".getBytes(StandardCharsets.US_ASCII));

      // KEYS * over 20,000 keys of 100 bytes: a reply of 2.2 MB, over the soft limit, under the hard one.
      ByteArrayOutputStream keys = new ByteArrayOutputStream();
      keys.write(("*" + SMALL_KEYS + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (int i = 0; i < SMALL_KEYS; i++) {
        keys.write(bulk(key(i).getBytes(StandardCharsets.US_ASCII)));
      }
      send(reader, command("KEYS", "*"));
      assertThat(readN(reader, keys.size())).as("KEYS * reply").isEqualTo(keys.toByteArray());

      // MGET of 3,000 keys (built encoded, on a worker) and one missing key: 3 MB.
      String[] args = new String[3_002];
      args[0] = "MGET";
      ByteArrayOutputStream values = new ByteArrayOutputStream();
      values.write(("*3001\r\n").getBytes(StandardCharsets.US_ASCII));
      for (int i = 0; i < 3_000; i++) {
        args[i + 1] = key(i);
        values.write(bulk(value(i)));
      }
      args[3_001] = "missing";
      values.write("$-1\r\n".getBytes(StandardCharsets.US_ASCII));
      send(reader, command(args));
      assertThat(readN(reader, values.size())).as("MGET reply").isEqualTo(values.toByteArray());

      // MGET of all 20,000 keys: a reply of 20 MB, five times the hard limit, sent while it is read.
      String[] all = new String[SMALL_KEYS + 1];
      all[0] = "MGET";
      for (int i = 0; i < SMALL_KEYS; i++) {
        all[i + 1] = key(i);
      }
      send(reader, command(all));
      byte[] header = ("*" + SMALL_KEYS + "\r\n").getBytes(StandardCharsets.US_ASCII);
      assertThat(readN(reader, header.length)).isEqualTo(header);
      for (int i = 0; i < SMALL_KEYS; i++) {
        byte[] expected = bulk(value(i));
        assertThat(readN(reader, expected.length)).as("value %d of MGET", i).isEqualTo(expected);
      }

      send(reader, command("PING"));
      assertThat(readN(reader, 7)).isEqualTo("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    assertThat(disconnections()).as("disconnections of a client that reads").isEqualTo(before);
  }

  @Test
  void httpListing_neverRead_isDisconnected() throws Exception {
    long before = disconnections();
    try (Socket greedy = slowReader(httpPort)) {
      // Pages of 1,000 entries with their values (about 1.4 MB of JSON each), 300 of them pipelined.
      byte[] get = ("GET /v1/dbs/default/tables/0/keys?limit=1000&values=true HTTP/1.1\r\nHost: x\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII);
      Thread sender = new Thread(() -> {
        try {
          OutputStream out = greedy.getOutputStream();
          for (int i = 0; i < 300; i++) {
            out.write(get);
          }
          out.flush();
        } catch (IOException e) {
          // disconnected by the server
        }
      });
      sender.setDaemon(true);
      sender.start();
      awaitDisconnections(before + 1);
      assertClosedByServer(greedy);
      sender.join(10_000);
    }
    // The soft limit, not the hard one: the server stopped answering while the responses backed up.
    assertLogged("closing HTTP client", "request=GET /v1/dbs/default/tables/0/keys", "client-output-buffer-soft-limit");
    HttpResponse<String> metrics = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.body()).containsPattern(
        "(?m)^kvstore_client_output_buffer_limit_disconnections_total [1-9]");
    assertHealthy();
  }

  @Test
  void httpMultiGetOfLargeValues_neverRead_isDisconnected_withoutOutOfMemory() throws Exception {
    // 1,000 keys of 1 MiB values: a response of 1.4 GB of JSON, fifteen times the heap.
    long before = disconnections();
    byte[] json = bigKeysJson(1000).getBytes(StandardCharsets.US_ASCII);
    try (Socket greedy = slowReader(httpPort)) {
      send(greedy, ("POST " + BIG_MULTI_GET + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + json.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII), json);
      awaitDisconnections(before + 1);
      assertClosedByServer(greedy);
    }
    // Sent while it is written, the response waits for the client at about 1 MiB: the soft limit.
    assertLogged("closing HTTP client", "request=POST " + BIG_MULTI_GET, "client-output-buffer-soft-limit");
    assertHealthy();
  }

  @Test
  void httpMultiGetOfLargeValues_readByTheClient_completesWhole() throws Exception {
    // 200 keys of 1 MiB values and a missing key: 280 MB of JSON, three times the heap and seventy
    // times the hard limit.
    long before = disconnections();
    HttpResponse<InputStream> r = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + BIG_MULTI_GET))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(bigKeysJson(200).replace("]}", ",\"missing\"]}")))
            .build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("transfer-encoding")).hasValue("chunked");
    try (InputStream in = r.body(); JsonParser p = new ObjectMapper().getFactory().createParser(in)) {
      assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
      assertThat(p.nextFieldName()).isEqualTo("items");
      assertThat(p.nextToken()).isEqualTo(JsonToken.START_ARRAY);
      for (int i = 0; i <= 200; i++) {
        assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
        String key = null;
        boolean found = false;
        byte[] value = null;
        for (String field; (field = p.nextFieldName()) != null; ) {
          p.nextToken();
          switch (field) {
            case "key" -> key = p.getText();
            case "found" -> found = p.getBooleanValue();
            case "value_b64" -> value = p.getBinaryValue();
            default -> p.skipChildren();
          }
        }
        if (i < 200) {
          assertThat(key).isEqualTo("big" + i % BIG_KEYS);
          assertThat(found).isTrue();
          assertThat(value).as("value of item %d", i).isEqualTo(bigValue(i % BIG_KEYS));
        } else {
          assertThat(key).isEqualTo("missing");
          assertThat(found).isFalse();
        }
      }
      assertThat(p.nextToken()).isEqualTo(JsonToken.END_ARRAY);
      assertThat(p.nextToken()).isEqualTo(JsonToken.END_OBJECT);
    }
    assertThat(disconnections()).as("disconnections of a client that reads").isEqualTo(before);
    assertHealthy();
  }

  // ---- helpers ----

  /** Writes the {@value #BIG_KEYS} values of 1 MiB to index 2. */
  private static void loadBig() throws Exception {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.select(2);
      for (int i = 0; i < BIG_KEYS; i++) {
        j.set(("big" + i).getBytes(StandardCharsets.US_ASCII), bigValue(i));
      }
    }
  }

  private static byte[] bigValue(int i) {
    byte[] v = new byte[BIG_VALUE_BYTES];
    for (int b = 0; b < v.length; b++) {
      v[b] = (byte) (i * 31 + b);
    }
    return v;
  }

  /** A multi-get's body asking for {@code n} keys, the large values in turn. */
  private static String bigKeysJson(int n) {
    StringBuilder sb = new StringBuilder("{\"keys\":[");
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : ",").append("\"big").append(i % BIG_KEYS).append('"');
    }
    return sb.append("]}").toString();
  }

  /** Writes {@code n} keys of 1 KiB values to index {@code db} with pipelined SETs. */
  private static void load(int db, int n) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(60_000);
      Thread writer = new Thread(() -> {
        try {
          OutputStream out = new BufferedOutputStream(s.getOutputStream(), 1 << 20);
          out.write(command("SELECT", Integer.toString(db)));
          for (int i = 0; i < n; i++) {
            out.write(command("SET".getBytes(StandardCharsets.US_ASCII), key(i).getBytes(StandardCharsets.US_ASCII),
                value(i)));
          }
          out.flush();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      });
      writer.start();
      InputStream in = s.getInputStream();
      byte[] ok = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
      byte[] got = new byte[ok.length];
      for (int i = 0; i <= n; i++) {
        assertThat(in.readNBytes(got, 0, ok.length)).isEqualTo(ok.length);
        assertThat(got).as("reply %d of the load", i).isEqualTo(ok);
      }
      writer.join();
    }
  }

  /** Key {@code i}: its number, zero-padded so that keys sort by it, then filler to 100 bytes. */
  private static String key(int i) {
    String n = String.format("%08d", i);
    return n + "k".repeat(KEY_BYTES - n.length());
  }

  private static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    Arrays.fill(v, (byte) ('a' + i % 26));
    return v;
  }

  private static byte[] bulk(byte[] b) {
    byte[] head = ("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[head.length + b.length + 2];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(b, 0, out, head.length, b.length);
    out[out.length - 2] = '\r';
    out[out.length - 1] = '\n';
    return out;
  }

  private static byte[] command(String... args) {
    byte[][] b = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      b[i] = args[i].getBytes(StandardCharsets.US_ASCII);
    }
    return command(b);
  }

  private static byte[] command(byte[]... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (byte[] a : args) {
      out.writeBytes(bulk(a));
    }
    return out.toByteArray();
  }

  private static void send(Socket s, byte[]... frames) throws IOException {
    OutputStream out = s.getOutputStream();
    for (byte[] f : frames) {
      out.write(f);
    }
    out.flush();
  }

  private static byte[] readN(Socket s, int n) throws IOException {
    return s.getInputStream().readNBytes(n);
  }

  private static Socket slowReader() throws IOException {
    return slowReader(port);
  }

  /** A connection with a small receive buffer whose owner reads nothing until told. */
  private static Socket slowReader(int toPort) throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(64 * 1024);
    s.connect(new InetSocketAddress("127.0.0.1", toPort));
    return s;
  }

  /**
   * Waits (up to 60 s) until INFO stats counts {@code expected} disconnections; meanwhile another
   * client's PING is answered within a second, every time.
   */
  private static void awaitDisconnections(long expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      long t0 = System.nanoTime();
      long n;
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        assertThat(j.ping()).isEqualTo("PONG");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0))
            .as("PING while a greedy client is served").isLessThan(1000);
        n = disconnections(j);
      }
      if (n >= expected) {
        return;
      }
      assertThat(System.nanoTime()).as("no disconnection for going over an output buffer limit within 60 s; log: %s",
          tail(server.stdout())).isLessThan(deadline);
      assertHealthy();
      Thread.sleep(100);
    }
  }

  /** Reads what the server sent until it closed the connection (at most 64 MiB, 10 s). */
  private static void assertClosedByServer(Socket s) throws IOException {
    s.setSoTimeout(10_000);
    InputStream in = s.getInputStream();
    byte[] buf = new byte[64 * 1024];
    long total = 0;
    try {
      for (int n; (n = in.read(buf)) >= 0; ) {
        total += n;
        assertThat(total).as("bytes a disconnected client could still read").isLessThan(64L << 20);
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server did not close the connection", e);
    } catch (SocketException e) {
      // reset: closed with requests it had not read
    }
  }

  private static long disconnections() {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      return disconnections(j);
    }
  }

  private static long disconnections(Jedis j) {
    for (String line : j.info("stats").split("\r\n")) {
      if (line.startsWith("client_output_buffer_limit_disconnections:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    throw new AssertionError("INFO stats has no client_output_buffer_limit_disconnections");
  }

  /** A WARN line of the server's log holds every one of {@code parts}. */
  private static void assertLogged(String... parts) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (true) {
      for (String line : server.stdout()) {
        if (line.contains(" WARN ") && Arrays.stream(parts).allMatch(line::contains)) {
          return;
        }
      }
      assertThat(System.nanoTime()).as("a WARN line with %s in %s", List.of(parts), tail(server.stdout()))
          .isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  private static void assertHealthy() {
    assertThat(server.isAlive()).as("server alive; log: %s %s", tail(server.stdout()), server.stderr()).isTrue();
    for (String line : server.stdout()) {
      assertThat(line).doesNotContain("OutOfMemoryError");
    }
    for (String line : server.stderr()) {
      assertThat(line).doesNotContain("OutOfMemoryError");
    }
  }

  private static List<String> tail(List<String> lines) {
    return lines.subList(Math.max(0, lines.size() - 20), lines.size());
  }
}
