package org.kvstore.cluster.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.kvstore.Entry;

/**
 * A read-only request to a shard's state machine and its reply, as they travel in Ratis read
 * requests ({@code RaftClientRequest.readRequestType()}): never logged, never stored, so not a file
 * format; both ends run the same build.
 *
 * <pre>
 *   query := BARRIER=2                                       (no reply body: a read barrier)
 *          | GET=1 | tableLength:u16 | table (UTF-8) | keyLength:u32 | key
 *   reply to GET := found:u8 (0 or 1) | version:i64 | expiresAt:i64 | valueLength:u32 | value
 * </pre>
 *
 * All integers little endian.
 *
 * <p>Thread safety: immutable.
 *
 * @param kind {@link #GET} or {@link #BARRIER}
 * @param table the table, for {@code GET}
 * @param key the key, for {@code GET}
 */
public record ShardQuery(int kind, String table, byte[] key) {
  public static final int GET = 1;
  public static final int BARRIER = 2;

  public static ShardQuery get(String table, byte[] key) {
    return new ShardQuery(GET, table, key);
  }

  public static ShardQuery barrier() {
    return new ShardQuery(BARRIER, null, null);
  }

  public byte[] encode() {
    if (kind == BARRIER) {
      return new byte[] {BARRIER};
    }
    byte[] name = table.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(1 + 2 + name.length + 4 + key.length).order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) GET).putShort((short) name.length).put(name).putInt(key.length).put(key);
    return b.array();
  }

  /** @throws IllegalArgumentException for bytes that are not a query */
  public static ShardQuery decode(byte[] bytes) {
    try {
      ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
      int kind = b.get();
      if (kind == BARRIER && !b.hasRemaining()) {
        return barrier();
      }
      if (kind != GET) {
        throw new IllegalArgumentException("unknown shard query kind " + kind);
      }
      byte[] name = new byte[b.getShort() & 0xffff];
      b.get(name);
      byte[] key = new byte[b.getInt()];
      b.get(key);
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(b.remaining() + " stray bytes after a shard query");
      }
      return get(new String(name, StandardCharsets.UTF_8), key);
    } catch (java.nio.BufferUnderflowException | NegativeArraySizeException e) {
      throw new IllegalArgumentException("truncated shard query", e);
    }
  }

  /** The reply to a GET: the entry found, or {@code null}. */
  public static byte[] encodeEntry(Entry e) {
    if (e == null) {
      return new byte[] {0};
    }
    ByteBuffer b = ByteBuffer.allocate(1 + 8 + 8 + 4 + e.value().length).order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 1).putLong(e.version()).putLong(e.expiresAt()).putInt(e.value().length).put(e.value());
    return b.array();
  }

  public static Entry decodeEntry(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    if (b.get() == 0) {
      return null;
    }
    long version = b.getLong();
    long expiresAt = b.getLong();
    byte[] value = new byte[b.getInt()];
    b.get(value);
    return new Entry(value, version, expiresAt);
  }
}
