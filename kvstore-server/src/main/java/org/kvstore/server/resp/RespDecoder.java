package org.kvstore.server.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes client requests: multibulk frames of bulk strings ({@code *N\r\n$len\r\n<bytes>\r\n...})
 * and inline commands ({@code SET k v\r\n}, as typed into telnet) into {@link RespRequest}s, and
 * anything else into one {@link RespProtocolError}, after which it discards all input.
 *
 * <pre>
 *            '*'                    N &gt; 0                  len small: wait for len+2 bytes
 *   START ─────────▶ (count line) ─────────▶ BULK_HEADER ─────────────────────────▶ (arg done)
 *     │  other byte                              ▲  '$' len          len large         │
 *     ▼                                          │        └──▶ BULK_STREAM ──▶ BULK_CRLF ─┤
 *   (inline line) ──▶ request                    └──────────── more args ◀─────────────────┘
 *   any error ──▶ DISCARD (skips everything)                  last arg ──▶ request, START
 * </pre>
 *
 * <p>Allocation never follows a declared length: lengths are checked at the header (bulk length
 * {@code <= maxBulkBytes}, multibulk count {@code <= maxMultibulk}; before authentication 16 KiB
 * and 10, as Redis does since CVE-2021-32675), the argument list grows as arguments arrive, and a
 * large bulk is copied into an array that grows with the bytes actually received. Header and inline
 * lines are limited to 64 KiB. So memory held for a connection is bounded by the bytes it sent, and
 * an over-long declaration is refused before any of its payload is read.
 *
 * <p>One request is produced per {@link #decode} call, so the handler sees (and can act on, e.g.
 * {@code AUTH}) each request before the next one is decoded with the limits then in force.
 *
 * <p>Thread safety: confined to the channel's event loop (not {@code @Sharable}).
 */
public final class RespDecoder extends ByteToMessageDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(RespDecoder.class);
  /** Longest inline command or header line (Redis {@code PROTO_INLINE_MAX_SIZE}). */
  public static final int MAX_LINE_BYTES = 64 * 1024;
  /** Redis' limits for a client that has not authenticated yet. */
  public static final int UNAUTHENTICATED_MAX_MULTIBULK = 10;
  public static final int UNAUTHENTICATED_MAX_BULK = 16 * 1024;
  public static final int UNAUTHENTICATED_MAX_BUFFER = 1024 * 1024;
  /** Bulks up to this size wait whole in the input buffer; larger ones stream into an array. */
  static final int STREAM_THRESHOLD = 32 * 1024;
  /**
   * Held bytes of an incomplete request that are not charged to the server-wide budget, so small
   * requests cost no shared-counter update (like the input buffer, they are bounded per connection).
   */
  static final int UNBUDGETED_BYTES = 64 * 1024;

  enum State {
    START,
    BULK_HEADER,
    BULK_PAYLOAD,
    BULK_STREAM,
    BULK_CRLF,
    DISCARD
  }

  private final long maxBulkBytes;
  private final int maxMultibulk;
  private final BooleanSupplier authenticated;

  private State state = State.START;
  private List<byte[]> args;
  private int remainingArgs;
  private int bulkLength;
  private byte[] streamed;
  private int streamedBytes;
  private final QueryBufferBudget budget;
  /** Bytes held for {@code args} and {@code streamed}. */
  private long held;
  /** The part of {@code held} reserved in the budget. */
  private long reserved;
  private final long readTimeoutNanos;
  /** When the incomplete request began (System.nanoTime), or -1 when none is incomplete. */
  private long partialSince = -1;
  private ScheduledFuture<?> timeoutCheck;

  /**
   * @param maxBulkBytes largest bulk string accepted (Redis {@code proto-max-bulk-len})
   * @param maxMultibulk most arguments in one request
   * @param authenticated whether the connection may use the full limits (true when no password is
   *     set); read before each header
   */
  public RespDecoder(long maxBulkBytes, int maxMultibulk, BooleanSupplier authenticated) {
    this(maxBulkBytes, maxMultibulk, authenticated, QueryBufferBudget.unlimited(), 0);
  }

  /**
   * @param budget the server-wide budget for bytes of incomplete requests
   * @param readTimeoutMillis a request still incomplete this long after its first byte closes the
   *     connection (0: never); time while the server itself does not read (back-pressure) is not
   *     counted against the client
   */
  public RespDecoder(long maxBulkBytes, int maxMultibulk, BooleanSupplier authenticated,
      QueryBufferBudget budget, long readTimeoutMillis) {
    if (maxBulkBytes < 1 || maxBulkBytes > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("maxBulkBytes out of range: " + maxBulkBytes);
    }
    if (maxMultibulk < 1) {
      throw new IllegalArgumentException("maxMultibulk must be >= 1, was " + maxMultibulk);
    }
    this.maxBulkBytes = maxBulkBytes;
    this.maxMultibulk = maxMultibulk;
    this.authenticated = authenticated;
    this.budget = budget;
    this.readTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis);
  }

  /** The current state, for tests. */
  State state() {
    return state;
  }

  /**
   * Bytes held for the incomplete request, as accounted against the budget, read from another
   * thread (CLIENT LIST): a snapshot without synchronization, so the decoder's path pays nothing
   * for it; it may be a moment old.
   */
  long heldSnapshot() {
    return held;
  }

  /** Bytes the decoder holds outside the input buffer (arguments so far, a streaming bulk), for tests. */
  long heldBytes() {
    long n = streamed == null ? 0 : streamed.length;
    if (args != null) {
      for (byte[] a : args) {
        n += a.length;
      }
    }
    return n;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    decodeOne(in, out);
    if (!out.isEmpty() || state == State.DISCARD) {
      releaseAll();
      partialSince = -1;
    }
    if (readTimeoutNanos > 0 && state != State.DISCARD) {
      boolean partial = state != State.START || in.isReadable();
      if (!partial) {
        partialSince = -1;
      } else if (partialSince < 0) {
        partialSince = System.nanoTime();
        if (timeoutCheck == null) {
          scheduleCheck(ctx, readTimeoutNanos);
        }
      }
    }
  }

  private void scheduleCheck(ChannelHandlerContext ctx, long delayNanos) {
    timeoutCheck = ctx.executor().schedule(() -> checkTimeout(ctx), delayNanos, TimeUnit.NANOSECONDS);
  }

  /** Closes the connection when its request has been incomplete for the read timeout. */
  private void checkTimeout(ChannelHandlerContext ctx) {
    timeoutCheck = null;
    if (partialSince < 0 || !ctx.channel().isActive() || state == State.DISCARD) {
      return;
    }
    if (!ctx.channel().config().isAutoRead()) {
      partialSince = System.nanoTime(); // we are not reading: not the client's delay
    }
    long waited = System.nanoTime() - partialSince;
    if (waited >= readTimeoutNanos) {
      LOG.debug("closing {}: request incomplete for {} ms", ctx.channel().remoteAddress(), waited / 1_000_000);
      state = State.DISCARD;
      releaseAll();
      ctx.close();
      return;
    }
    scheduleCheck(ctx, readTimeoutNanos - waited);
  }

  /**
   * Accounts {@code n} more held bytes; the part beyond this connection's free allowance
   * ({@link #UNBUDGETED_BYTES}) is reserved in the budget. False after failing the connection.
   */
  private boolean reserve(long n, ByteBuf in, List<Object> out) {
    long needed = Math.max(0, held + n - UNBUDGETED_BYTES) - reserved;
    if (needed > 0) {
      if (!budget.tryReserve(needed)) {
        fail(in, out, "the server's query buffer budget is exhausted (query-buffer-budget)");
        return false;
      }
      reserved += needed;
    }
    held += n;
    return true;
  }

  private void releaseAll() {
    held = 0;
    if (reserved > 0) {
      budget.release(reserved);
      reserved = 0;
    }
  }

  private void decodeOne(ByteBuf in, List<Object> out) {
    if (state != State.DISCARD && !authenticated.getAsBoolean()
        && in.readableBytes() > UNAUTHENTICATED_MAX_BUFFER) {
      fail(in, out, "unauthenticated query buffer is too big");
      return;
    }
    while (in.isReadable()) {
      switch (state) {
        case START -> {
          if (in.getByte(in.readerIndex()) == '*') {
            if (!readMultibulkCount(in, out)) {
              return;
            }
          } else if (!readInline(in, out)) {
            return;
          }
          if (!out.isEmpty()) {
            return;
          }
        }
        case BULK_HEADER -> {
          if (!readBulkHeader(in, out)) {
            return;
          }
        }
        case BULK_PAYLOAD -> {
          if (in.readableBytes() < bulkLength + 2) {
            return;
          }
          if (!reserve(bulkLength, in, out)) {
            return;
          }
          byte[] value = new byte[bulkLength];
          in.readBytes(value);
          if (!readCrlf(in, out)) {
            return;
          }
          if (addArg(value, out)) {
            return;
          }
        }
        case BULK_STREAM -> {
          int n = Math.min(in.readableBytes(), bulkLength - streamedBytes);
          if (streamedBytes + n > streamed.length) {
            // Grow with the bytes received, never to the declared length in one step.
            long grown = Math.min(Math.max((long) streamed.length * 2, streamedBytes + n), bulkLength);
            if (!reserve(grown - streamed.length, in, out)) {
              return;
            }
            streamed = java.util.Arrays.copyOf(streamed, (int) grown);
          }
          in.readBytes(streamed, streamedBytes, n);
          streamedBytes += n;
          if (streamedBytes == bulkLength) {
            state = State.BULK_CRLF;
          }
        }
        case BULK_CRLF -> {
          if (in.readableBytes() < 2) {
            return;
          }
          if (!readCrlf(in, out)) {
            return;
          }
          byte[] value = streamed;
          streamed = null;
          if (addArg(value, out)) {
            return;
          }
        }
        case DISCARD -> {
          in.skipBytes(in.readableBytes());
          return;
        }
        default -> throw new IllegalStateException("unknown state " + state);
      }
    }
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    args = null;
    streamed = null;
    releaseAll();
    if (timeoutCheck != null) {
      timeoutCheck.cancel(false);
      timeoutCheck = null;
    }
  }

  private boolean readMultibulkCount(ByteBuf in, List<Object> out) {
    int eol = findCrlf(in, in.readerIndex() + 1);
    if (eol < 0) {
      if (in.readableBytes() > MAX_LINE_BYTES) {
        fail(in, out, "too big mbulk count string");
      }
      return false;
    }
    long count = parseLength(in, in.readerIndex() + 1, eol);
    in.readerIndex(eol + 2);
    if (count == BAD_NUMBER || count > Integer.MAX_VALUE || count > maxMultibulk) {
      fail(in, out, "invalid multibulk length");
      return false;
    }
    if (count > UNAUTHENTICATED_MAX_MULTIBULK && !authenticated.getAsBoolean()) {
      fail(in, out, "unauthenticated multibulk length");
      return false;
    }
    if (count <= 0) {
      return true; // "*0" and "*-1" are ignored, as Redis does
    }
    remainingArgs = (int) count;
    args = new ArrayList<>((int) Math.min(count, 16));
    state = State.BULK_HEADER;
    return true;
  }

  private boolean readBulkHeader(ByteBuf in, List<Object> out) {
    byte first = in.getByte(in.readerIndex());
    if (first != '$') {
      fail(in, out, "expected '$', got '" + (char) (first & 0xff) + "'");
      return false;
    }
    int eol = findCrlf(in, in.readerIndex() + 1);
    if (eol < 0) {
      if (in.readableBytes() > MAX_LINE_BYTES) {
        fail(in, out, "too big bulk count string");
      }
      return false;
    }
    long length = parseLength(in, in.readerIndex() + 1, eol);
    in.readerIndex(eol + 2);
    if (length == BAD_NUMBER || length < 0 || length > maxBulkBytes) {
      fail(in, out, "invalid bulk length");
      return false;
    }
    if (length > UNAUTHENTICATED_MAX_BULK && !authenticated.getAsBoolean()) {
      fail(in, out, "unauthenticated bulk length");
      return false;
    }
    bulkLength = (int) length;
    if (bulkLength <= STREAM_THRESHOLD) {
      state = State.BULK_PAYLOAD;
    } else {
      if (!reserve(STREAM_THRESHOLD, in, out)) {
        return false;
      }
      streamed = new byte[STREAM_THRESHOLD];
      streamedBytes = 0;
      state = State.BULK_STREAM;
    }
    return true;
  }

  private boolean readCrlf(ByteBuf in, List<Object> out) {
    if (in.readByte() != '\r' || in.readByte() != '\n') {
      fail(in, out, "expected CRLF after bulk string of " + bulkLength + " bytes");
      return false;
    }
    return true;
  }

  /** Adds one argument; returns true when it completed a request (added to {@code out}). */
  private boolean addArg(byte[] value, List<Object> out) {
    args.add(value);
    if (--remainingArgs > 0) {
      state = State.BULK_HEADER;
      return false;
    }
    out.add(new RespRequest(args));
    args = null;
    state = State.START;
    return true;
  }

  private boolean readInline(ByteBuf in, List<Object> out) {
    int start = in.readerIndex();
    int limit = Math.min(in.writerIndex(), start + MAX_LINE_BYTES + 1);
    int lf = in.indexOf(start, limit, (byte) '\n');
    if (lf < 0) {
      if (in.readableBytes() > MAX_LINE_BYTES) {
        fail(in, out, "too big inline request");
      }
      return false;
    }
    int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
    byte[] line = new byte[end - start];
    in.getBytes(start, line);
    in.readerIndex(lf + 1);
    List<byte[]> parsed = InlineSplitter.split(line);
    if (parsed == null) {
      fail(in, out, "unbalanced quotes in request");
      return false;
    }
    if (!parsed.isEmpty()) { // an empty line is ignored (redis-cli --pipe relies on it)
      out.add(new RespRequest(parsed));
    }
    return true;
  }

  private void fail(ByteBuf in, List<Object> out, String message) {
    in.skipBytes(in.readableBytes());
    args = null;
    streamed = null;
    state = State.DISCARD;
    out.add(new RespProtocolError(message));
  }

  /** Index of the CR of the first CRLF at or after {@code from}, or -1. */
  private static int findCrlf(ByteBuf in, int from) {
    int limit = Math.min(in.writerIndex(), from + MAX_LINE_BYTES + 1);
    int cr = in.indexOf(from, limit, (byte) '\r');
    while (cr >= 0 && cr + 1 < in.writerIndex()) {
      if (in.getByte(cr + 1) == '\n') {
        return cr;
      }
      cr = in.indexOf(cr + 1, limit, (byte) '\r');
    }
    return -1;
  }

  private static final long BAD_NUMBER = Long.MIN_VALUE;

  /**
   * Parses a length as Redis' {@code string2ll}: an optional '-', then digits without a leading
   * zero (except "0"), at most 19 digits. Returns {@link #BAD_NUMBER} for anything else.
   */
  private static long parseLength(ByteBuf in, int from, int to) {
    int i = from;
    boolean negative = false;
    if (i < to && in.getByte(i) == '-') {
      negative = true;
      i++;
    }
    int digits = to - i;
    if (digits <= 0 || digits > 18) {
      return BAD_NUMBER;
    }
    if (in.getByte(i) == '0' && digits > 1) {
      return BAD_NUMBER;
    }
    long v = 0;
    for (; i < to; i++) {
      byte b = in.getByte(i);
      if (b < '0' || b > '9') {
        return BAD_NUMBER;
      }
      v = v * 10 + (b - '0');
    }
    return negative ? -v : v;
  }
}
