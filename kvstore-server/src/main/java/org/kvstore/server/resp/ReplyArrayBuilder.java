package org.kvstore.server.resp;

import java.util.ArrayList;
import java.util.List;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.output.ReplyBudget;

/**
 * Builds a large array reply (KEYS, SCAN, KV.RANGE, a large MGET) already encoded, in parts that
 * count against the client's output buffer ({@link ReplyBudget}), instead of a list of
 * {@link RespMessage}s and then their encoding. An array's length comes before its elements, so a
 * reply whose length is known only at the end cannot be sent before it is built; building it
 * encoded keeps it at about its size on the wire, and the budget stops it at the client's limit.
 *
 * <p>When the length is known up front ({@link #streaming}: a large MGET) and the connection can
 * take it, the header goes first and each full part is sent at once ({@link ReplyStreamer}), so
 * the reply is never held whole.
 *
 * <p>When a part cannot be reserved (or sent) the client is being disconnected: {@link #addBulk}
 * releases what the builder holds and throws, so the command stops and closes its cursor. A command
 * that fails after a streamed reply has begun must close the connection ({@link #streamed()}).

 *
 * <p>Thread safety: confined to the thread that runs the command.
 */
final class ReplyArrayBuilder {
  static final int PART_BYTES = 64 * 1024;
  private static final byte[] NULL_BULK = {'$', '-', '1', '\r', '\n'};
  private static final byte[] NULL_RESP3 = {'_', '\r', '\n'};

  private final ReplyBudget budget;
  private final int protocol;
  private final List<byte[]> parts = new ArrayList<>();
  private byte[] part;
  private int pos;
  private int count;
  private long reserved;
  private final byte[] digits = new byte[24];
  /** Sends full parts as they are made, or null: they are kept for {@link #build}. */
  private final ReplyStreamer streamer;
  /** Some part has been sent: the reply is under way on the wire. */
  private boolean streamed;

  ReplyArrayBuilder(RespSession session) {
    this.budget = session.replyBudget();
    this.protocol = session.protocolVersion();
    this.streamer = null;
  }

  private ReplyArrayBuilder(RespSession session, ReplyStreamer streamer, int count) {
    this.budget = session.replyBudget();
    this.protocol = session.protocolVersion();
    this.streamer = streamer;
    putByte((byte) '*');
    putLong(count);
    putCrlf();
  }

  /**
   * A builder for an array of {@code count} elements that sends its parts as they are made when the
   * connection can take them ({@link RespSession#streamer()}), else a plain one.
   */
  static ReplyArrayBuilder streaming(RespSession session, int count) {
    ReplyStreamer s = session.streamer();
    return s == null ? new ReplyArrayBuilder(session) : new ReplyArrayBuilder(session, s, count);
  }

  /** Whether part of the reply was already sent: after a failure the connection must close. */
  boolean streamed() {
    return streamed;
  }

  /** Closes the connection of a streamed reply that cannot be finished. */
  void abort() {
    if (streamer != null) {
      streamer.abort();
    }
  }

  /** Appends a bulk string, or the null reply when {@code value} is null (a missing key of MGET). */
  void addBulk(byte[] value) {
    count++;
    if (value == null) {
      put(protocol >= 3 ? NULL_RESP3 : NULL_BULK, 0, protocol >= 3 ? NULL_RESP3.length : NULL_BULK.length);
      return;
    }
    putByte((byte) '$');
    putLong(value.length);
    putCrlf();
    put(value, 0, value.length);
    putCrlf();
  }

  /** Elements added so far. */
  int size() {
    return count;
  }

  /**
   * The reply, or with a streaming builder its rest (its header in its first part or already sent);
   * the builder must not be used afterwards.
   */
  RespMessage.EncodedArray build() {
    if (part != null) {
      parts.add(part);
    }
    RespMessage.EncodedArray a = new RespMessage.EncodedArray(
        streamer == null ? count : RespMessage.EncodedArray.HEADER_SENT, List.copyOf(parts), pos, reserved, budget);
    parts.clear();
    part = null;
    return a;
  }

  /** Gives back what the builder reserved (a command that fails after building part of it). */
  void discard() {
    budget.release(reserved);
    reserved = 0;
    parts.clear();
    part = null;
  }

  private void putCrlf() {
    putByte((byte) '\r');
    putByte((byte) '\n');
  }

  private void putLong(long v) {
    int i = digits.length;
    if (v == 0) {
      digits[--i] = '0';
    }
    while (v > 0) {
      digits[--i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    put(digits, i, digits.length - i);
  }

  private void putByte(byte b) {
    if (part == null || pos == part.length) {
      newPart();
    }
    part[pos++] = b;
  }

  private void put(byte[] src, int from, int len) {
    while (len > 0) {
      if (part == null || pos == part.length) {
        newPart();
      }
      int n = Math.min(len, part.length - pos);
      System.arraycopy(src, from, part, pos, n);
      pos += n;
      from += n;
      len -= n;
    }
  }

  private void newPart() {
    if (part != null && streamer != null) {
      byte[] full = part;
      part = null;
      reserved -= PART_BYTES;
      streamed = true;
      if (!streamer.send(full, full.length, PART_BYTES)) {
        discard();
        throw new CommandException("ERR the connection closed while its reply was sent");
      }
    }
    if (!budget.tryReserve(PART_BYTES)) {
      discard();
      throw new CommandException("ERR the reply is over the client output buffer limit; closing the connection");
    }
    reserved += PART_BYTES;
    if (part != null) {
      parts.add(part);
    }
    part = new byte[PART_BYTES];
    pos = 0;
  }
}
