package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The decoder through EmbeddedChannel: every split offset, the limits, and no allocation from lengths. */
class RespDecoderTest {
  static final long MAX_BULK = 512L << 20;

  static EmbeddedChannel channel(boolean authenticated) {
    return new EmbeddedChannel(new RespDecoder(MAX_BULK, 1 << 20, () -> authenticated));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Feeds {@code input} cut at the given offsets and returns what came out. */
  static List<Object> decode(byte[] input, int... cuts) {
    EmbeddedChannel ch = channel(true);
    int from = 0;
    for (int cut : cuts) {
      ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(input, from, cut)));
      from = cut;
    }
    ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(input, from, input.length)));
    List<Object> out = new ArrayList<>();
    for (Object o; (o = ch.readInbound()) != null; ) {
      out.add(o);
    }
    ch.checkException();
    ch.finishAndReleaseAll();
    return out;
  }

  static List<String> render(List<Object> msgs) {
    List<String> out = new ArrayList<>();
    for (Object o : msgs) {
      if (o instanceof RespRequest r) {
        out.add(String.join("|", r.args().stream().map(a -> new String(a, StandardCharsets.ISO_8859_1)).toList()));
      } else {
        out.add("ERROR " + ((RespProtocolError) o).message());
      }
    }
    return out;
  }

  static final String STREAM = "*3\r\n$3\r\nSET\r\n$4\r\nk\r\nx\r\n$0\r\n\r\n"
      + "GET k\r\n"
      + "*0\r\n"
      + "\r\n"
      + "*2\r\n$4\r\nECHO\r\n$7\r\na\r\nb\0c\u00ff\r\n"
      + "ping 'a b' \"c\\x41\"\n";
  static final List<String> EXPECTED = List.of("SET|k\r\nx|", "GET|k", "ECHO|a\r\nb\0c\u00ff", "ping|a b|cA");

  @Test
  void decode_wholeStream_yieldsEveryRequest() {
    assertThat(render(decode(bytes(STREAM)))).isEqualTo(EXPECTED);
  }

  @Test
  void decode_splitAtEveryOffset_yieldsTheSameRequests() {
    byte[] in = bytes(STREAM);
    for (int cut = 0; cut <= in.length; cut++) {
      assertThat(render(decode(in, cut))).as("cut at %d", cut).isEqualTo(EXPECTED);
    }
  }

  @Test
  void decode_splitAtEveryPairOfOffsets_yieldsTheSameRequests() {
    byte[] in = bytes(STREAM);
    for (int a = 0; a <= in.length; a++) {
      for (int b = a; b <= in.length; b++) {
        assertThat(render(decode(in, a, b))).as("cuts at %d,%d", a, b).isEqualTo(EXPECTED);
      }
    }
  }

  @Test
  void decode_byteByByte_yieldsTheSameRequests() {
    byte[] in = bytes(STREAM);
    int[] cuts = new int[in.length - 1];
    for (int i = 0; i < cuts.length; i++) {
      cuts[i] = i + 1;
    }
    assertThat(render(decode(in, cuts))).isEqualTo(EXPECTED);
  }

  @Test
  void decode_largeBulkInRandomChunks_isExact() {
    Random rnd = new Random(42);
    byte[] value = new byte[300_000];
    rnd.nextBytes(value);
    byte[] head = bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + value.length + "\r\n");
    byte[] in = new byte[head.length + value.length + 2];
    System.arraycopy(head, 0, in, 0, head.length);
    System.arraycopy(value, 0, in, head.length, value.length);
    in[in.length - 2] = '\r';
    in[in.length - 1] = '\n';
    List<Integer> cuts = new ArrayList<>();
    for (int pos = rnd.nextInt(5000); pos < in.length; pos += 1 + rnd.nextInt(20_000)) {
      cuts.add(pos);
    }
    List<Object> out = decode(in, cuts.stream().mapToInt(Integer::intValue).toArray());
    assertThat(out).hasSize(1);
    assertThat(((RespRequest) out.get(0)).arg(2)).isEqualTo(value);
  }

  @Test
  void oversizedBulk_isRefusedAtTheHeader_beforeItsPayload() {
    EmbeddedChannel ch = channel(true);
    RespDecoder d = ch.pipeline().get(RespDecoder.class);
    ch.writeInbound(Unpooled.wrappedBuffer(bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$629145600\r\n")));
    assertThat(((RespProtocolError) ch.readInbound()).message()).isEqualTo("invalid bulk length");
    assertThat(d.state()).isEqualTo(RespDecoder.State.DISCARD);
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[1 << 20]));
    assertThat((Object) ch.readInbound()).isNull();
    assertThat(d.heldBytes()).isZero();
    ch.finishAndReleaseAll();
  }

  @Test
  void bulkOfExactlyTheLimit_isAccepted() {
    EmbeddedChannel ch = new EmbeddedChannel(new RespDecoder(1024, 16, () -> true));
    ch.writeInbound(Unpooled.wrappedBuffer(bytes("*1\r\n$1024\r\n")));
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[1024]), Unpooled.wrappedBuffer(bytes("\r\n")));
    assertThat((Object) ch.readInbound()).isInstanceOf(RespRequest.class);
    ch.writeInbound(Unpooled.wrappedBuffer(bytes("*1\r\n$1025\r\n")));
    assertThat(((RespProtocolError) ch.readInbound()).message()).isEqualTo("invalid bulk length");
    ch.finishAndReleaseAll();
  }

  @Test
  void hugeDeclarations_allocateNothingUpFront() {
    EmbeddedChannel ch = channel(true);
    RespDecoder d = ch.pipeline().get(RespDecoder.class);
    ch.writeInbound(Unpooled.wrappedBuffer(bytes("*1000000\r\n$500000000\r\nabc")));
    assertThat((Object) ch.readInbound()).isNull();
    assertThat(d.state()).isEqualTo(RespDecoder.State.BULK_STREAM);
    assertThat(d.heldBytes()).as("only the streaming window, not 500 MB").isLessThanOrEqualTo(64 * 1024);
    ch.finishAndReleaseAll();
  }

  @Test
  void nestedArrays_areAProtocolError_withoutRecursion() {
    String nested = "*1\r\n".repeat(10_000);
    assertThat(render(decode(bytes(nested)))).containsExactly("ERROR expected '$', got '*'");
  }

  @Test
  void endlessHeaderOrInline_isCutAt64KiB() {
    EmbeddedChannel ch = channel(true);
    byte[] digits = new byte[70 * 1024];
    Arrays.fill(digits, (byte) '1');
    ByteBuf first = Unpooled.buffer();
    first.writeBytes(bytes("*1\r\n$"));
    ch.writeInbound(first);
    ch.writeInbound(Unpooled.wrappedBuffer(digits));
    assertThat(((RespProtocolError) ch.readInbound()).message()).isEqualTo("too big bulk count string");
    ch.finishAndReleaseAll();

    assertThat(render(decode(digits))).containsExactly("ERROR too big inline request");
    byte[] star = new byte[70 * 1024];
    Arrays.fill(star, (byte) '9');
    star[0] = '*';
    assertThat(render(decode(star))).containsExactly("ERROR too big mbulk count string");
  }

  @Test
  void unauthenticated_limitsAreRedis() {
    assertThat(render(decodeUnauth("*11\r\n"))).containsExactly("ERROR unauthenticated multibulk length");
    assertThat(render(decodeUnauth("*2\r\n$3\r\nGET\r\n$16385\r\n"))).containsExactly("ERROR unauthenticated bulk length");
    assertThat(render(decodeUnauth("*2\r\n$4\r\nAUTH\r\n$16384\r\n"))).isEmpty();
  }

  private static List<Object> decodeUnauth(String s) {
    EmbeddedChannel ch = channel(false);
    ch.writeInbound(Unpooled.wrappedBuffer(bytes(s)));
    List<Object> out = new ArrayList<>();
    for (Object o; (o = ch.readInbound()) != null; ) {
      out.add(o);
    }
    ch.finishAndReleaseAll();
    return out;
  }

  @Test
  void badLengths_areProtocolErrors() {
    assertThat(render(decode(bytes("*-1\r\n*0\r\nPING\r\n")))).containsExactly("PING");
    assertThat(render(decode(bytes("*01\r\n")))).containsExactly("ERROR invalid multibulk length");
    assertThat(render(decode(bytes("*1\r\n$01\r\n")))).containsExactly("ERROR invalid bulk length");
    assertThat(render(decode(bytes("*1\r\n$1\r\nab\r\n")))).containsExactly("ERROR expected CRLF after bulk string of 1 bytes");
    assertThat(render(decode(bytes("SET \"a\r\n")))).containsExactly("ERROR unbalanced quotes in request");
  }
}
