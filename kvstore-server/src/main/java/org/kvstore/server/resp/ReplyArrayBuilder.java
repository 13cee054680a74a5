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
 * <p>When a part cannot be reserved the client is being disconnected: {@link #addBulk} releases
 * what the builder holds and throws, so the command stops and closes its cursor.
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

  ReplyArrayBuilder(RespSession session) {
    this.budget = session.replyBudget();
    this.protocol = session.protocolVersion();
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

  /** The reply; the builder must not be used afterwards. */
  RespMessage.EncodedArray build() {
    if (part != null) {
      parts.add(part);
    }
    RespMessage.EncodedArray a = new RespMessage.EncodedArray(count, List.copyOf(parts), pos, reserved, budget);
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
