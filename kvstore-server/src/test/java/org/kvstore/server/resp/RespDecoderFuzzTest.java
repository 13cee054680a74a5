package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvstore.testkit.Seeds;

/**
 * Random and mutated frames: no exception escapes the decoder, it never hangs, it holds no
 * more memory than the bytes it was fed, and every valid frame decodes to exactly its arguments.
 * The seed is printed; rerun one with {@code -Dkvstore.seed=N}. {@code -Psoak} runs 10x more.
 */
class RespDecoderFuzzTest {
  static final int FRAMES = "soak".equals(System.getProperty("kvstore.test.scale")) ? 1_000_000 : 100_000;

  @Test
  void randomAndMutatedFrames_neverEscapeOrHang() {
    long seed = Seeds.seed("RespDecoderFuzzTest (" + FRAMES + " frames)");
    Random rnd = new Random(seed);
    assertTimeoutPreemptively(Duration.ofSeconds(120), () -> run(rnd, seed));
  }

  private void run(Random rnd, long seed) {
    int valid = 0;
    int errors = 0;
    int frames = 0;
    while (frames < FRAMES) {
      // One connection gets a run of frames; a protocol error ends it, like the real handler.
      boolean authenticated = rnd.nextInt(4) != 0;
      RespDecoder decoder = new RespDecoder(1 << 20, 4096, () -> authenticated);
      EmbeddedChannel ch = new EmbeddedChannel(decoder);
      ByteArrayOutputStream stream = new ByteArrayOutputStream();
      List<List<byte[]>> expected = new ArrayList<>();
      boolean clean = true;
      int n = 1 + rnd.nextInt(20);
      for (int i = 0; i < n && frames < FRAMES; i++, frames++) {
        List<byte[]> args = randomArgs(rnd, authenticated);
        byte[] frame = rnd.nextBoolean() || !inlineSafe(args) ? multibulk(args) : inline(args);
        int kind = rnd.nextInt(10);
        if (kind < 6) {
          if (clean) {
            expected.add(args);
          }
        } else if (kind < 9) {
          frame = mutate(rnd, frame);
          clean = false;
        } else {
          frame = new byte[rnd.nextInt(200)];
          rnd.nextBytes(frame);
          clean = false;
        }
        stream.writeBytes(frame);
      }
      byte[] input = stream.toByteArray();
      long fed = 0;
      List<Object> out = new ArrayList<>();
      for (int pos = 0; pos < input.length; ) {
        int len = Math.min(input.length - pos, 1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 4096));
        ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(input, pos, pos + len)));
        pos += len;
        fed += len;
        ch.checkException();
        assertThat(decoder.heldBytes()).as("seed %d", seed).isLessThanOrEqualTo(2 * fed + 64 * 1024);
        for (Object o; (o = ch.readInbound()) != null; ) {
          out.add(o);
        }
      }
      int requests = 0;
      for (Object o : out) {
        if (o instanceof RespRequest r) {
          long argBytes = r.args().stream().mapToLong(a -> a.length).sum();
          assertThat(argBytes).isLessThanOrEqualTo(input.length);
          if (requests < expected.size()) {
            List<byte[]> want = expected.get(requests);
            assertThat(r.size()).as("seed %d", seed).isEqualTo(want.size());
            for (int k = 0; k < want.size(); k++) {
              assertThat(r.arg(k)).as("seed %d", seed).isEqualTo(want.get(k));
            }
          }
          requests++;
        } else {
          assertThat(o).isInstanceOf(RespProtocolError.class);
          assertThat(decoder.state()).isEqualTo(RespDecoder.State.DISCARD);
          assertThat(requests).as("seed %d: one error, last", seed).isEqualTo(out.size() - 1);
          errors++;
        }
      }
      // Frames before the first damaged one are decoded before any damaged byte is seen.
      assertThat(requests).as("seed %d", seed).isGreaterThanOrEqualTo(expected.size());
      if (clean) {
        assertThat(requests).as("seed %d", seed).isEqualTo(expected.size());
      }
      valid += expected.size();
      ch.finishAndReleaseAll();
    }
    System.out.println("RespDecoderFuzzTest: " + frames + " frames, " + valid + " checked exactly, " + errors + " protocol errors");
    assertThat(valid).isGreaterThan(FRAMES / 10);
    assertThat(errors).isGreaterThan(FRAMES / 100);
  }

  private static List<byte[]> randomArgs(Random rnd, boolean authenticated) {
    int n = 1 + rnd.nextInt(authenticated ? 12 : 10);
    List<byte[]> args = new ArrayList<>(n);
    args.add(new String[] {"SET", "GET", "PING", "ECHO", "MSET", "DEL"}[rnd.nextInt(6)].getBytes(StandardCharsets.US_ASCII));
    for (int i = 1; i < n; i++) {
      int len = rnd.nextInt(100) == 0 ? 30_000 + rnd.nextInt(authenticated ? 60_000 : 1) : rnd.nextInt(24);
      if (!authenticated) {
        len = Math.min(len, 16 * 1024);
      }
      byte[] a = new byte[len];
      if (rnd.nextBoolean()) {
        rnd.nextBytes(a);
      } else {
        for (int k = 0; k < len; k++) {
          a[k] = (byte) ('a' + rnd.nextInt(26));
        }
      }
      args.add(a);
    }
    return args;
  }

  private static boolean inlineSafe(List<byte[]> args) {
    long total = 0;
    for (byte[] a : args) {
      if (a.length == 0) {
        return false;
      }
      for (byte b : a) {
        if (b < 'a' || b > 'z') {
          if (a != args.get(0)) {
            return false;
          }
        }
      }
      total += a.length + 1;
    }
    return total < 60_000;
  }

  private static byte[] multibulk(List<byte[]> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (byte[] a : args) {
      out.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(a);
      out.writeBytes(new byte[] {'\r', '\n'});
    }
    return out.toByteArray();
  }

  private static byte[] inline(List<byte[]> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < args.size(); i++) {
      if (i > 0) {
        out.write(' ');
      }
      out.writeBytes(args.get(i));
    }
    out.writeBytes(new byte[] {'\r', '\n'});
    return out.toByteArray();
  }

  private static final String[] NASTY = {
    "*", "$", "\r\n", "\r", "\n", "-1", "0", "2147483648", "99999999999", "*1000000\r\n",
    "$536870913\r\n", "+", ":", "\"", "'", "\\x", "*1\r\n*1\r\n"
  };

  private static byte[] mutate(Random rnd, byte[] frame) {
    byte[] f = frame;
    int edits = 1 + rnd.nextInt(3);
    for (int e = 0; e < edits; e++) {
      int pos = f.length == 0 ? 0 : rnd.nextInt(f.length);
      switch (rnd.nextInt(6)) {
        case 0 -> {
          if (f.length > 0) {
            f = f.clone();
            f[pos] = (byte) rnd.nextInt(256);
          }
        }
        case 1 -> f = Arrays.copyOf(f, pos); // truncate
        case 2 -> { // delete a byte
          if (f.length > 0) {
            byte[] g = new byte[f.length - 1];
            System.arraycopy(f, 0, g, 0, pos);
            System.arraycopy(f, pos + 1, g, pos, f.length - pos - 1);
            f = g;
          }
        }
        default -> { // insert a nasty token
          byte[] t = NASTY[rnd.nextInt(NASTY.length)].getBytes(StandardCharsets.ISO_8859_1);
          byte[] g = new byte[f.length + t.length];
          System.arraycopy(f, 0, g, 0, pos);
          System.arraycopy(t, 0, g, pos, t.length);
          System.arraycopy(f, pos, g, pos + t.length, f.length - pos);
          f = g;
        }
      }
    }
    return f;
  }
}
