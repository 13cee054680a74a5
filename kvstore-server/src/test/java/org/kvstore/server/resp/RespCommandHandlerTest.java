package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.ServerSettings;
import org.kvstore.server.command.WriteCoalescer;

/**
 * The decoder and the command handler together through {@link EmbeddedChannel}, over a real
 * in-memory store: input split at every byte offset, a pipeline in one buffer (its SETs written as
 * one batch), and back-pressure (a client that does not take its replies stops the reading).
 */
class RespCommandHandlerTest {
  /** Workers and the coalescer's blocking writes run inline; their hand-backs queue on the channel's loop. */
  private static final Executor INLINE = Runnable::run;

  @TempDir Path dir;
  private KVStore store;
  private RespCommandExecutor executor;

  @BeforeEach
  void open() {
    store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE).build());
    Keyspace keyspace = new Keyspace(store, "memory", 16);
    keyspace.ensureDefaults();
    ServerSettings settings = new ServerSettings(
        "test", dir, "127.0.0.1", Durability.NONE, null, 100, 512L << 20, 1 << 20);
    executor = new RespCommandExecutor(keyspace, settings);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** Swallows flushes while {@link #stalled}: the client reads none of its replies. */
  private static final class StalledClient extends ChannelOutboundHandlerAdapter {
    boolean stalled;

    @Override
    public void flush(ChannelHandlerContext ctx) {
      if (!stalled) {
        ctx.flush();
      }
    }
  }

  private EmbeddedChannel channel(StalledClient client) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8 * 1024, 32 * 1024));
    RespSession session = executor.open(ch.remoteAddress(), ch.localAddress());
    if (client != null) {
      ch.pipeline().addLast(client);
    }
    ch.pipeline().addLast(
        new RespDecoder(512L << 20, 1 << 20, session::authenticated),
        new RespCommandHandler(session, executor, INLINE,
            new WriteCoalescer.PerLoop(INLINE, executor.putWriter()), new ReplyFlusher.PerLoop(), null));
    return ch;
  }

  /** Everything the channel wrote so far, as text. */
  private static String written(EmbeddedChannel ch) {
    StringBuilder sb = new StringBuilder();
    for (Object o; (o = ch.readOutbound()) != null; ) {
      ByteBuf b = (ByteBuf) o;
      sb.append(b.toString(StandardCharsets.ISO_8859_1));
      b.release();
    }
    return sb.toString();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String command(String... args) {
    StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
    for (String a : args) {
      sb.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
    }
    return sb.toString();
  }

  static final String STREAM = command("FLUSHDB")
      + command("SET", "a", "1")
      + command("SET", "b", "2")
      + command("GET", "a")
      + "SET c 3 NX\r\n"
      + command("INCR", "n")
      + command("MGET", "a", "b", "c")
      + command("DEL", "a")
      + "PING\r\n"
      + command("GET", "a");
  static final String REPLIES = "+OK\r\n"
      + "+OK\r\n"
      + "+OK\r\n"
      + "$1\r\n1\r\n"
      + "+OK\r\n"
      + ":1\r\n"
      + "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n"
      + ":1\r\n"
      + "+PONG\r\n"
      + "$-1\r\n";

  @Test
  void channelRead_inputSplitAtEveryOffset_repliesInOrder() {
    byte[] in = bytes(STREAM);
    for (int cut = 0; cut <= in.length; cut++) {
      EmbeddedChannel ch = channel(null);
      ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(in, 0, cut)));
      ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(in, cut, in.length)));
      ch.runPendingTasks();
      assertThat(written(ch)).as("cut at %d", cut).isEqualTo(REPLIES);
      ch.checkException();
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void channelRead_oneByteAtATime_repliesInOrder() {
    EmbeddedChannel ch = channel(null);
    for (byte b : bytes(STREAM)) {
      ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
      ch.runPendingTasks();
    }
    assertThat(written(ch)).isEqualTo(REPLIES);
    ch.finishAndReleaseAll();
  }

  @Test
  void channelRead_pipelineInOneBuffer_repliesInOrder_setsWrittenAsOneBatch() {
    int n = 200;
    StringBuilder in = new StringBuilder(command("GET", "warm-up")); // resolves the table
    StringBuilder expected = new StringBuilder("$-1\r\n");
    for (int i = 0; i < n; i++) {
      in.append(command("SET", "k" + i, "v" + i));
      expected.append("+OK\r\n");
    }
    for (int i = 0; i < n; i++) {
      in.append(command("GET", "k" + i));
      expected.append("$").append(("v" + i).length()).append("\r\nv").append(i).append("\r\n");
    }
    long writesBefore = executor.putWriter().batches();
    EmbeddedChannel ch = channel(null);

    ch.writeInbound(Unpooled.wrappedBuffer(bytes(in.toString())));
    ch.runPendingTasks();

    assertThat(written(ch)).isEqualTo(expected.toString());
    // The first SET goes as soon as it is decoded; the rest of the pipeline's SETs wait for it and
    // then go to the coalescer as one run: two store writes, not one per SET.
    assertThat(executor.putWriter().batches() - writesBefore).isEqualTo(2);
    assertThat(executor.putWriter().puts()).isEqualTo(n);
    ch.finishAndReleaseAll();
  }

  @Test
  void channelRead_pipelineOfSetsWithExpiry_coalescedLikePlainSets_eachWithItsExpiry() {
    int n = 100;
    StringBuilder in = new StringBuilder(command("GET", "warm-up")); // resolves the table
    StringBuilder expected = new StringBuilder("$-1\r\n");
    for (int i = 0; i < n; i++) {
      in.append(i % 2 == 0 ? command("SET", "e" + i, "v", "EX", "60") : command("SET", "e" + i, "v", "px", "90000"));
      expected.append("+OK\r\n");
    }
    in.append(command("SET", "bad", "v", "EX", "0")); // not coalesced: it runs alone and answers its error
    expected.append("-ERR invalid expire time in 'set' command\r\n");
    long writesBefore = executor.putWriter().batches();
    EmbeddedChannel ch = channel(null);

    ch.writeInbound(Unpooled.wrappedBuffer(bytes(in.toString())));
    ch.runPendingTasks();

    assertThat(written(ch)).isEqualTo(expected.toString());
    assertThat(executor.putWriter().batches() - writesBefore).isEqualTo(2);
    assertThat(executor.putWriter().puts()).isEqualTo(n);
    long now = store.options().clock().millis();
    Table t = store.table(Keyspace.DEFAULT_DB, "0");
    for (int i = 0; i < n; i++) {
      long left = t.getEntry(bytes("e" + i)).expiresAt() - now;
      assertThat(left).as("e%d", i).isBetween(i % 2 == 0 ? 50_000L : 80_000L, i % 2 == 0 ? 60_000L : 90_000L);
    }
    assertThat(t.getEntry(bytes("bad"))).isNull();
    ch.finishAndReleaseAll();
  }

  @Test
  void channelRead_clientTakesNoReplies_stopsReadingUntilTheyDrain() {
    StalledClient client = new StalledClient();
    EmbeddedChannel ch = channel(client);
    String value = "x".repeat(1024);
    ch.writeInbound(Unpooled.wrappedBuffer(bytes(command("SET", "big", value))));
    ch.runPendingTasks();
    assertThat(written(ch)).isEqualTo("+OK\r\n");

    client.stalled = true;
    int gets = 500; // about 500 KiB of replies, far over the 32 KiB high water mark
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < gets; i++) {
      in.append(command("GET", "big"));
    }
    ch.writeInbound(Unpooled.wrappedBuffer(bytes(in.toString())));
    ch.runPendingTasks();

    assertThat(ch.isWritable()).as("replies past the high water mark").isFalse();
    assertThat(ch.config().isAutoRead()).as("reading while the client takes no replies").isFalse();
    assertThat(ch.unsafe().outboundBuffer().totalPendingWriteBytes())
        .as("replies held for the stalled client").isLessThan(256 * 1024);

    client.stalled = false;
    String reply = "$1024\r\n" + value + "\r\n";
    StringBuilder got = new StringBuilder();
    for (int round = 0; round < 1000 && got.length() < gets * reply.length(); round++) {
      ch.flush();
      ch.runPendingTasks();
      got.append(written(ch));
    }
    assertThat(got.toString()).isEqualTo(reply.repeat(gets));
    assertThat(ch.config().isAutoRead()).as("reading again once the replies drained").isTrue();
    ch.finishAndReleaseAll();
  }
}
