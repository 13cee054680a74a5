package org.kvstore.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.kvstore.server.output.ReplyBudget;

/**
 * A reply in the Redis serialization protocol, independent of the protocol version: the
 * {@link RespEncoder} writes it as RESP2 or RESP3 depending on what the connection negotiated
 * ({@code HELLO}). The hierarchy is small on purpose: the server only sends what every client in
 * docs/server.md accepts (no attributes, pushes, blob errors or doubles).
 *
 * <pre>
 *   type             RESP2                    RESP3
 *   SimpleString     +OK                      +OK
 *   ErrorReply       -ERR ...                 -ERR ...
 *   IntegerReply     :42                      :42
 *   BulkString       $3 abc                   $3 abc
 *   NullReply        $-1                      _
 *   NullArrayReply   *-1                      _
 *   ArrayReply       *n ...                   *n ...
 *   MapReply         *2n k1 v1 ...            %n k1 v1 ...
 *   EncodedArray     *n + bytes encoded ahead (in the version its command ran under)
 * </pre>
 *
 * <p>Thread safety: immutable (the byte arrays of bulk strings are not copied; callers hand them
 * over).
 */
public sealed interface RespMessage {

  RespMessage OK = new SimpleString("OK");
  RespMessage PONG = new SimpleString("PONG");
  RespMessage NULL = new NullReply();
  RespMessage NULL_ARRAY = new NullArrayReply();
  RespMessage ZERO = new IntegerReply(0);
  RespMessage ONE = new IntegerReply(1);
  RespMessage EMPTY_ARRAY = new ArrayReply(List.of());
  RespMessage EMPTY_BULK = new BulkString(new byte[0]);

  /** A status line such as {@code +OK}; must not contain CR or LF. */
  record SimpleString(String text) implements RespMessage {}

  /**
   * An error line. {@code text} starts with the error code ({@code ERR}, {@code NOAUTH}, ...); CR
   * and LF in it are replaced by spaces when encoded, as Redis does.
   */
  record ErrorReply(String text) implements RespMessage {}

  record IntegerReply(long value) implements RespMessage {}

  /** A binary-safe string; {@code value} is owned by the message. */
  record BulkString(byte[] value) implements RespMessage {
    public static BulkString of(String text) {
      return new BulkString(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The null reply: {@code $-1} in RESP2, {@code _} in RESP3. */
  record NullReply() implements RespMessage {}

  /**
   * The null array: {@code *-1} in RESP2, {@code _} in RESP3. Only {@code EXEC} sends it, for a
   * transaction a {@code WATCH}ed key's change aborted (clients tell it from an empty result).
   */
  record NullArrayReply() implements RespMessage {}

  record ArrayReply(List<RespMessage> items) implements RespMessage {}

  /** Key/value pairs: a map in RESP3, a flat array of {@code 2 * size} items in RESP2. */
  record MapReply(List<RespMessage> keys, List<RespMessage> values) implements RespMessage {
    public MapReply {
      if (keys.size() != values.size()) {
        throw new IllegalArgumentException(
            "keys and values differ in size: " + keys.size() + " != " + values.size());
      }
    }
  }

  /**
   * An array whose elements are already encoded ({@link ReplyArrayBuilder}): {@code count} elements
   * in {@code parts}, each part full but the last, which holds {@code lastLength} bytes. Until
   * {@link #release()} its {@code reserved} bytes count against the client's output buffer.
   *
   * <p>Thread safety: immutable but for the release flag (atomic).
   */
  final class EncodedArray implements RespMessage {
    /**
     * The count of the rest of a streamed array ({@link ReplyStreamer}): its header is in its first
     * part, which was sent already or is among these parts.
     */
    static final int HEADER_SENT = -1;

    private final int count;
    private final List<byte[]> parts;
    private final int lastLength;
    private final long reserved;
    private final ReplyBudget budget;
    private final AtomicBoolean released = new AtomicBoolean();

    EncodedArray(int count, List<byte[]> parts, int lastLength, long reserved, ReplyBudget budget) {
      this.count = count;
      this.parts = parts;
      this.lastLength = lastLength;
      this.reserved = reserved;
      this.budget = budget;
    }

    /** Elements, or {@link #HEADER_SENT}: the parts hold the header, or end a reply under way. */
    public int count() {
      return count;
    }

    /** The encoded elements' parts; the caller must not modify them. */
    public List<byte[]> parts() {
      return parts;
    }

    /** Bytes used in part {@code i}. */
    public int partLength(int i) {
      return i == parts.size() - 1 ? lastLength : parts.get(i).length;
    }

    /** Bytes of the encoded elements. */
    public long bytes() {
      return parts.isEmpty() ? 0 : (long) (parts.size() - 1) * parts.get(0).length + lastLength;
    }

    /** Gives the reserved bytes back to the client's budget (once; later calls do nothing). */
    public void release() {
      if (released.compareAndSet(false, true)) {
        budget.release(reserved);
      }
    }
  }

  /** Releases the reservations of the {@link EncodedArray}s in {@code message} (after encoding it). */
  static void releaseEncoded(RespMessage message) {
    if (message instanceof EncodedArray e) {
      e.release();
    } else if (message instanceof ArrayReply a) {
      for (RespMessage m : a.items()) {
        if (m instanceof EncodedArray || m instanceof ArrayReply) {
          releaseEncoded(m);
        }
      }
    }
  }

  static RespMessage error(String text) {
    return new ErrorReply(text);
  }

  static RespMessage bulk(String text) {
    return BulkString.of(text);
  }

  /** A bulk string, or the null reply when {@code value} is null. */
  static RespMessage bulkOrNull(byte[] value) {
    return value == null ? NULL : new BulkString(value);
  }

  static RespMessage integer(long value) {
    return value == 0 ? ZERO : value == 1 ? ONE : new IntegerReply(value);
  }
}
