package org.kvstore.cluster.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.kvstore.CorruptionException;
import org.kvstore.Entry;
import org.kvstore.codec.Crc32c;
import org.kvstore.spi.Mutation;

/**
 * Encodes and decodes {@link ShardEntry}, the payload of a shard's Raft log entries. The format is
 * specified in docs/format/raft-entry.md, which is the source of truth; {@code ShardEntryFormatTest}
 * ties the doc's example to the golden file {@code golden/raft-entry-v1.bin}.
 *
 * <p>Thread safety: stateless.
 */
public final class ShardEntryFormat {
  /** "KVRE": the first four bytes of every entry. */
  public static final int MAGIC = 0x4552564b; // bytes 4b 56 52 45, read little endian
  public static final int VERSION = 1;
  /** Entry kind: a batch of effects (DO NOT RENUMBER). */
  public static final int KIND_EFFECTS = 1;
  /** Effect kinds (DO NOT RENUMBER). */
  public static final int PUT = 1;
  public static final int REMOVE = 2;
  /** magic, version, kind, table count. */
  public static final int HEADER_BYTES = 4 + 1 + 1 + 2;
  public static final int CRC_BYTES = 4;
  /** The largest number of tables one entry names. */
  public static final int MAX_TABLES = 0xffff;

  private ShardEntryFormat() {}

  /** The entry's bytes (a fresh array). */
  public static byte[] encode(ShardEntry entry) {
    if (entry.tables().size() > MAX_TABLES) {
      throw new IllegalArgumentException("an entry names at most " + MAX_TABLES + " tables, not " + entry.tables().size());
    }
    int size = HEADER_BYTES + CRC_BYTES;
    List<byte[]> names = new ArrayList<>(entry.tables().size());
    Set<String> seen = new HashSet<>();
    for (TableEffects t : entry.tables()) {
      if (!seen.add(t.table())) {
        throw new IllegalArgumentException("table " + t.table() + " appears twice in one entry");
      }
      byte[] name = t.table().getBytes(StandardCharsets.UTF_8);
      if (name.length > 0xffff) {
        throw new IllegalArgumentException("table name longer than 65535 bytes: " + t.table());
      }
      names.add(name);
      size += 2 + name.length + 4;
      for (Mutation m : t.mutations()) {
        size += 1 + 4 + m.key().length + (m.isRemove() ? 0 : 4 + m.value().length + 8);
      }
    }
    ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(MAGIC).put((byte) VERSION).put((byte) KIND_EFFECTS).putShort((short) entry.tables().size());
    for (int i = 0; i < names.size(); i++) {
      TableEffects t = entry.tables().get(i);
      b.putShort((short) names.get(i).length).put(names.get(i)).putInt(t.mutations().size());
      for (Mutation m : t.mutations()) {
        if (m.isRemove()) {
          b.put((byte) REMOVE).putInt(m.key().length).put(m.key());
        } else {
          b.put((byte) PUT).putInt(m.key().length).put(m.key())
              .putInt(m.value().length).put(m.value()).putLong(m.expiresAt());
        }
      }
    }
    b.putInt(Crc32c.of(b.array(), 0, size - CRC_BYTES));
    return b.array();
  }

  /**
   * Decodes an entry's bytes.
   *
   * @param source names the entry in errors (the group's log directory)
   * @param index the entry's Raft index, for errors
   * @throws CorruptionException naming {@code source}, the offset within the entry and the index, for
   *     a checksum mismatch, an unknown version or kind, a truncated field or trailing bytes
   */
  public static ShardEntry decode(byte[] bytes, Path source, long index) {
    if (bytes.length < HEADER_BYTES + CRC_BYTES) {
      throw corrupt(source, index, 0, "entry of " + bytes.length + " bytes is shorter than its header and checksum");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    if (b.getInt() != MAGIC) {
      throw corrupt(source, index, 0, "bad magic (not a KVStore shard entry)");
    }
    int crcAt = bytes.length - CRC_BYTES;
    int stored = ByteBuffer.wrap(bytes, crcAt, CRC_BYTES).order(ByteOrder.LITTLE_ENDIAN).getInt();
    if (stored != Crc32c.of(bytes, 0, crcAt)) {
      throw corrupt(source, index, crcAt, "checksum mismatch");
    }
    int version = b.get() & 0xff;
    if (version != VERSION) {
      throw corrupt(source, index, 4, "entry version " + version + " is not supported (this build reads " + VERSION + ")");
    }
    int kind = b.get() & 0xff;
    if (kind != KIND_EFFECTS) {
      throw corrupt(source, index, 5, "unknown entry kind " + kind);
    }
    int tables = b.getShort() & 0xffff;
    b.limit(crcAt);
    List<TableEffects> out = new ArrayList<>(Math.min(tables, 64));
    try {
      for (int t = 0; t < tables; t++) {
        String name = decodeName(b, source, index);
        int count = b.getInt();
        if (count < 0 || count > b.remaining()) { // each effect takes at least one byte
          throw corrupt(source, index, b.position() - 4, "effect count " + Integer.toUnsignedString(count) + " exceeds the entry");
        }
        List<Mutation> mutations = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          int at = b.position();
          int effect = b.get() & 0xff;
          byte[] key = bytes(b, source, index);
          if (effect == REMOVE) {
            mutations.add(Mutation.remove(key));
          } else if (effect == PUT) {
            byte[] value = bytes(b, source, index);
            long expiresAt = b.getLong();
            if (expiresAt < Entry.NO_EXPIRY) {
              throw corrupt(source, index, b.position() - 8, "negative expiry " + expiresAt);
            }
            mutations.add(Mutation.put(key, value, expiresAt));
          } else {
            throw corrupt(source, index, at, "unknown effect kind " + effect);
          }
        }
        out.add(new TableEffects(name, mutations));
      }
    } catch (java.nio.BufferUnderflowException e) {
      throw corrupt(source, index, b.position(), "truncated field");
    }
    if (b.hasRemaining()) {
      throw corrupt(source, index, b.position(), b.remaining() + " stray bytes after the last effect");
    }
    return new ShardEntry(out);
  }

  private static String decodeName(ByteBuffer b, Path source, long index) {
    int at = b.position();
    int len = b.getShort() & 0xffff;
    if (len == 0 || len > b.remaining()) {
      throw corrupt(source, index, at, "table name length " + len + " is empty or exceeds the entry");
    }
    ByteBuffer slice = b.slice();
    slice.limit(len);
    b.position(b.position() + len);
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(slice).toString();
    } catch (CharacterCodingException e) {
      throw corrupt(source, index, at + 2, "table name is not UTF-8");
    }
  }

  private static byte[] bytes(ByteBuffer b, Path source, long index) {
    int at = b.position();
    int len = b.getInt();
    if (len < 0 || len > b.remaining()) {
      throw corrupt(source, index, at, "length " + Integer.toUnsignedString(len) + " exceeds the entry");
    }
    byte[] out = new byte[len];
    b.get(out);
    return out;
  }

  private static CorruptionException corrupt(Path source, long index, long offset, String detail) {
    return new CorruptionException(source, offset, "raft entry at index " + index + ": " + detail);
  }
}
