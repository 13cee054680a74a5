package org.kvstore.server.command;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.kvstore.KVStoreException;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;

/**
 * What the string commands do to a table, for every protocol: GET, SET (with its conditions),
 * SETNX, GETSET, GETDEL, DEL, EXISTS, MGET, MSET, MSETNX, the INCR family, INCRBYFLOAT, APPEND,
 * STRLEN, GETRANGE (SUBSTR), SETRANGE and LCS. A front end parses its request into these arguments and encodes
 * the result; nothing here knows a wire format.
 *
 * <p>Every read-modify-write (conditional SET, GETSET, GETDEL, SETNX, MSETNX, counters, APPEND,
 * SETRANGE) runs inside {@link Table#updateEntries}, which holds the keys' locks across the read and
 * the write, so it is atomic; MSET is one {@link WriteBatch}. A SET that need not read the key
 * (unconditional, with or without an expiry) goes through {@link PutWriter}, the writer every
 * plain put of the server takes.
 *
 * <p>Expiry, as in Redis: SET, GETSET and MSET give the key no expiry (unless SET's
 * {@code KEEPTTL}); the commands that modify a value in place (the INCR family, INCRBYFLOAT, APPEND,
 * SETRANGE) keep the key's expiry ({@link PutOptions#keepExpiry()}).
 *
 * <p>Arrays: keys and values passed in are handed over (the front end decoded them for this request
 * alone) and must not be modified afterwards; arrays returned belong to the caller.
 *
 * <p>Errors: {@link CommandException} for a refused command (not an integer, an overflow, a value
 * over the size limit); the store's {@link KVStoreException}s (an invalid key, a dropped table, an
 * I/O failure) pass through unchanged. Each front end maps them to its replies in one place.
 *
 * <p>Thread safety: thread-safe.
 */
public final class StringCommands {
  static final String TOO_LONG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
  /** A modification in place: the key keeps its expiry, as Redis' in-place updates do. */
  static final PutOptions KEEP_EXPIRY = PutOptions.defaults().keepExpiry();

  private final PutWriter writer;
  private final long maxValueBytes;

  /**
   * {@code maxValueBytes}: the longest value APPEND and SETRANGE may make, and the most bytes LCS's
   * table may take.
   */
  public StringCommands(PutWriter writer, long maxValueBytes) {
    this.writer = writer;
    this.maxValueBytes = maxValueBytes;
  }

  /** The value of {@code key}, or null. The array may be shared: read it, do not modify it. */
  public byte[] get(Table t, byte[] key) {
    return t.getReadOnly(key);
  }

  /**
   * SET: writes {@code value} under {@code key} if {@code options} allow it.
   *
   * @return whether it was written, and with {@link SetOptions#returnOld()} the value before
   */
  public SetResult set(Table t, byte[] key, byte[] value, SetOptions options) {
    if (options.isPlain()) {
      writer.put(t, key, value, options.putOptions());
      return SetResult.WRITTEN;
    }
    byte[][] old = new byte[1][];
    boolean[] done = new boolean[1];
    t.updateEntries(List.of(key), cur -> {
      old[0] = cur[0] == null ? null : cur[0].value();
      if ((options.condition() == SetOptions.Condition.IF_ABSENT && cur[0] != null)
          || (options.condition() == SetOptions.Condition.IF_PRESENT && cur[0] == null)) {
        return null;
      }
      done[0] = true;
      return new WriteBatch().putOwned(key, value, options.putOptions());
    });
    return new SetResult(done[0], old[0]);
  }

  /** SETNX: writes {@code value} only when {@code key} is absent; returns whether it did. */
  public boolean setIfAbsent(Table t, byte[] key, byte[] value) {
    return set(t, key, value, new SetOptions(SetOptions.Condition.IF_ABSENT, false)).written();
  }

  /** GETSET: writes {@code value} and returns the value before, or null. */
  public byte[] getAndSet(Table t, byte[] key, byte[] value) {
    return set(t, key, value, new SetOptions(SetOptions.Condition.ALWAYS, true)).old();
  }

  /** GETDEL: removes {@code key} and returns its value, or null (nothing removed). */
  public byte[] getAndDelete(Table t, byte[] key) {
    byte[][] old = new byte[1][];
    t.update(List.of(key), cur -> {
      old[0] = cur[0];
      return cur[0] == null ? null : new WriteBatch().remove(key);
    });
    return old[0];
  }

  /** DEL: removes each distinct key; returns how many existed. */
  public long delete(Table t, List<byte[]> keys) {
    long n = 0;
    for (byte[] key : distinct(keys)) {
      if (t.remove(key)) {
        n++;
      }
    }
    return n;
  }

  /** EXISTS: how many of {@code keys} exist (a key named twice counts twice). */
  public long countExisting(Table t, List<byte[]> keys) {
    long n = 0;
    for (byte[] key : keys) {
      if (t.getReadOnly(key) != null) {
        n++;
      }
    }
    return n;
  }

  /**
   * MGET: fills {@code values[i]} with the value of {@code keys[i]} (null: absent), the keys looked
   * up together. The values may be shared: read them, do not modify them.
   */
  public void multiGet(Table t, byte[][] keys, byte[][] values) {
    t.multiGetReadOnly(keys, values);
  }

  /** MSET: writes every {@code keys[i] = values[i]} as one atomic batch. */
  public void multiSet(Table t, byte[][] keys, byte[][] values) {
    WriteBatch b = new WriteBatch();
    for (int i = 0; i < keys.length; i++) {
      b.putOwned(keys[i], values[i]);
    }
    t.write(b);
  }

  /** MSETNX: writes all pairs only when none of the keys exists, atomically; returns whether it did. */
  public boolean multiSetIfNoneExists(Table t, byte[][] keys, byte[][] values) {
    boolean[] done = new boolean[1];
    t.update(Arrays.asList(keys), cur -> {
      for (byte[] v : cur) {
        if (v != null) {
          return null;
        }
      }
      WriteBatch b = new WriteBatch();
      for (int i = 0; i < keys.length; i++) {
        b.putOwned(keys[i], values[i]);
      }
      done[0] = true;
      return b;
    });
    return done[0];
  }

  /**
   * INCRBY (INCR, DECR, DECRBY): adds {@code by} to the integer value of {@code key} (absent: 0)
   * and returns the sum.
   *
   * @throws CommandException when the value is not an integer or the sum overflows
   */
  public long incrementBy(Table t, byte[] key, long by) {
    long[] result = new long[1];
    t.updateEntries(List.of(key), cur -> {
      long v = 0;
      if (cur[0] != null) {
        if (!RedisNumbers.isLong(cur[0].value())) {
          throw new CommandException(CommandException.NOT_INTEGER);
        }
        v = RedisNumbers.parseLong(cur[0].value());
      }
      if ((by > 0 && v > Long.MAX_VALUE - by) || (by < 0 && v < Long.MIN_VALUE - by)) {
        throw new CommandException("ERR increment or decrement would overflow");
      }
      result[0] = v + by;
      return new WriteBatch().putOwned(key, RedisNumbers.toBytes(result[0]), KEEP_EXPIRY);
    });
    return result[0];
  }

  /**
   * INCRBYFLOAT: adds {@code by} to the value of {@code key} (absent: 0) as Redis adds its
   * {@code long double}s ({@link LongDouble}) and returns the sum as it is stored (its text).
   *
   * @throws CommandException when the value is not a valid float, or the sum would be infinite or
   *     not a number (an infinite {@code by} always is)
   */
  public byte[] incrementByFloat(Table t, byte[] key, LongDouble by) {
    byte[][] result = new byte[1][];
    t.updateEntries(List.of(key), cur -> {
      LongDouble v = cur[0] == null ? LongDouble.ZERO : LongDouble.parse(cur[0].value());
      LongDouble sum = v.add(by);
      if (sum.isInfinite()) {
        throw new CommandException("ERR increment would produce NaN or Infinity");
      }
      result[0] = sum.toRedisString().getBytes(StandardCharsets.US_ASCII);
      return new WriteBatch().put(key, result[0], KEEP_EXPIRY);
    });
    return result[0];
  }

  /** APPEND: appends {@code tail} to the value of {@code key} (absent: empty); returns the new length. */
  public long append(Table t, byte[] key, byte[] tail) {
    long[] length = new long[1];
    t.updateEntries(List.of(key), cur -> {
      byte[] head = cur[0] == null ? new byte[0] : cur[0].value();
      long total = (long) head.length + tail.length;
      checkSize(total);
      byte[] v = Arrays.copyOf(head, (int) total);
      System.arraycopy(tail, 0, v, head.length, tail.length);
      length[0] = total;
      return new WriteBatch().putOwned(key, v, KEEP_EXPIRY);
    });
    return length[0];
  }

  /** STRLEN: the length of the value of {@code key}, 0 when absent. */
  public long length(Table t, byte[] key) {
    byte[] v = t.getReadOnly(key);
    return v == null ? 0 : v.length;
  }

  /**
   * GETRANGE: the bytes of the value from {@code start} to {@code end}, both inclusive, negative
   * offsets counted from the end; empty when the range is empty or the key absent.
   */
  public byte[] getRange(Table t, byte[] key, long start, long end) {
    byte[] v = t.getReadOnly(key);
    if (v == null || v.length == 0) {
      return new byte[0];
    }
    long n = v.length;
    if (start < 0 && end < 0 && start > end) {
      return new byte[0];
    }
    if (start < 0) {
      start = Math.max(0, n + start);
    }
    if (end < 0) {
      end = Math.max(0, n + end);
    }
    if (end >= n) {
      end = n - 1;
    }
    if (start > end || start >= n) {
      return new byte[0];
    }
    return Arrays.copyOfRange(v, (int) start, (int) end + 1);
  }

  /**
   * SETRANGE: overwrites the value from {@code offset} with {@code patch}, padding with zero bytes;
   * returns the new length. An empty {@code patch} changes nothing (and creates no key): the reply
   * is the current length.
   *
   * @throws CommandException when {@code offset} is negative or {@code offset + patch.length} would
   *     pass the size limit
   */
  public long setRange(Table t, byte[] key, long offset, byte[] patch) {
    if (offset < 0) {
      throw new CommandException("ERR offset is out of range");
    }
    long[] length = new long[1];
    t.updateEntries(List.of(key), cur -> {
      byte[] v = cur[0] == null ? null : cur[0].value();
      if (patch.length == 0) {
        length[0] = v == null ? 0 : v.length;
        return null;
      }
      checkSize(offset, patch.length);
      long total = Math.max(v == null ? 0 : v.length, offset + patch.length);
      byte[] out = v == null ? new byte[(int) total] : Arrays.copyOf(v, (int) total);
      System.arraycopy(patch, 0, out, (int) offset, patch.length);
      length[0] = total;
      return new WriteBatch().putOwned(key, out, KEEP_EXPIRY);
    });
    return length[0];
  }

  /**
   * LCS: the longest common subsequence of the values of {@code key1} and {@code key2} (absent:
   * empty), with its runs of at least {@code minMatchLength} bytes.
   *
   * @throws CommandException when the table it needs exceeds the value size limit
   */
  public LongestCommonSubsequence longestCommonSubsequence(
      Table t, byte[] key1, byte[] key2, long minMatchLength) {
    byte[] a = t.getReadOnly(key1);
    byte[] b = t.getReadOnly(key2);
    return LongestCommonSubsequence.of(
        a == null ? new byte[0] : a, b == null ? new byte[0] : b, minMatchLength, maxValueBytes);
  }

  private void checkSize(long total) {
    if (total > maxValueBytes) {
      throw new CommandException(TOO_LONG);
    }
  }

  /** Redis' {@code checkStringLength}: {@code offset + length} within the limit, without overflow. */
  private void checkSize(long offset, long length) {
    if (offset > maxValueBytes - length) {
      throw new CommandException(TOO_LONG);
    }
  }

  /** {@code keys} without duplicates, in order. */
  private static List<byte[]> distinct(List<byte[]> keys) {
    Set<ByteBuffer> seen = new LinkedHashSet<>();
    List<byte[]> out = new ArrayList<>(keys.size());
    for (byte[] k : keys) {
      if (seen.add(ByteBuffer.wrap(k))) {
        out.add(k);
      }
    }
    return out;
  }
}
