package org.kvstore.server.warmup;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A RESP client sending what redis-benchmark and pipelining clients send: batches of
 * {@value #BATCH} pipelined requests, all SETs or all GETs (values of 3 and 500 bytes, keys shaped
 * like redis-benchmark's {@code key:000000012345}), and every fifth batch a mix of MGET, INCR, DEL,
 * EXISTS and SET. The replies are parsed, so the server's reply encoding runs in full.
 *
 * <p>Thread safety: confined.
 */
final class RespExerciser implements Exerciser {
  static final int BATCH = 16;
  /** The key space: redis-benchmark's {@code -r 100000}. */
  private static final int KEYS = 100_000;
  private static final byte[] SMALL = "xxx".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] LARGE = filled(500);

  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;
  private final ByteArrayOutputStream batch = new ByteArrayOutputStream(16 * 1024);
  private final SplittableRandom random;
  private long rounds;

  RespExerciser(InetSocketAddress server, long seed) throws IOException {
    socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(30_000);
      socket.connect(server, 10_000);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    random = new SplittableRandom(seed);
  }

  @Override
  public String protocol() {
    return "RESP";
  }

  @Override
  public int round() throws IOException {
    batch.reset();
    int kind = (int) (rounds++ % 5);
    boolean large = (rounds / 5) % 2 == 0;
    for (int i = 0; i < BATCH; i++) {
      switch (kind) {
        case 0, 2 -> command("SET", key(), kind == 0 ? SMALL : LARGE);
        case 1, 3 -> command("GET", key());
        default -> mixed(i, large);
      }
    }
    batch.writeTo(out);
    out.flush();
    for (int i = 0; i < BATCH; i++) {
      readReply();
    }
    return BATCH;
  }

  private void mixed(int i, boolean large) {
    switch (i % 5) {
      case 0 -> command("MGET", key(), key(), key(), key());
      case 1 -> command("INCR", "counter:" + random.nextInt(16));
      case 2 -> command("DEL", key());
      case 3 -> command("EXISTS", key());
      default -> command("SET", key(), large ? LARGE : SMALL);
    }
  }

  private byte[] key() {
    return String.format(Locale.ROOT, "key:%012d", random.nextInt(KEYS)).getBytes(StandardCharsets.US_ASCII);
  }

  private void command(String name, Object... args) {
    header('*', 1 + args.length);
    bulk(name.getBytes(StandardCharsets.US_ASCII));
    for (Object a : args) {
      bulk(a instanceof byte[] b ? b : a.toString().getBytes(StandardCharsets.US_ASCII));
    }
  }

  private void bulk(byte[] b) {
    header('$', b.length);
    batch.writeBytes(b);
    batch.write('\r');
    batch.write('\n');
  }

  private void header(char type, int n) {
    batch.write(type);
    batch.writeBytes(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
    batch.write('\r');
    batch.write('\n');
  }

  /** Reads one reply (nested for arrays); an error reply is a failure. */
  private void readReply() throws IOException {
    int type = in.read();
    String line = line();
    switch (type) {
      case '+', ':' -> { }
      case '$' -> skip(Integer.parseInt(line));
      case '*' -> {
        for (int n = Integer.parseInt(line); n > 0; n--) {
          readReply();
        }
      }
      case '-' -> throw new WarmupException("RESP error reply from the scratch server: " + line);
      case -1 -> throw new EOFException("the scratch server closed the RESP connection");
      default -> throw new WarmupException("unexpected RESP reply type '" + (char) type + "'");
    }
  }

  private void skip(int length) throws IOException {
    if (length < 0) {
      return; // null bulk string
    }
    long left = length + 2L;
    while (left > 0) {
      long n = in.skip(left);
      if (n <= 0) {
        if (in.read() < 0) {
          throw new EOFException("the scratch server closed the RESP connection");
        }
        n = 1;
      }
      left -= n;
    }
  }

  private String line() throws IOException {
    StringBuilder b = new StringBuilder(16);
    for (int c = in.read(); c != '\r'; c = in.read()) {
      if (c < 0) {
        throw new EOFException("the scratch server closed the RESP connection");
      }
      b.append((char) c);
    }
    if (in.read() != '\n') {
      throw new WarmupException("RESP reply line not ended by CRLF: " + b);
    }
    return b.toString();
  }

  private static byte[] filled(int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) 'x');
    return b;
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // Closing a loopback socket of a scratch server: nothing to do about it.
    }
  }
}
