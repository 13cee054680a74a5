package org.kvstore.server.command;

import java.util.Arrays;
import java.util.List;
import org.kvstore.Table;
import org.kvstore.WriteBatch;

/**
 * What the bitmap commands do to a table, for every protocol: SETBIT, GETBIT, BITCOUNT and BITPOS
 * over string values, bit 0 being the most significant bit of the first byte, as in Redis. A
 * missing key is an empty string; reading past the end reads zero bits.
 *
 * <p>SETBIT is a read-modify-write inside {@link Table#updateEntries} (atomic per key) that keeps
 * the key's expiry, as Redis' in-place update does; the others read.
 *
 * <p>Errors: {@link CommandException} for a refused argument; the store's exceptions pass through.
 *
 * <p>Thread safety: thread-safe.
 */
public final class BitmapCommands {
  public static final String BAD_BIT_OFFSET = "ERR bit offset is not an integer or out of range";
  public static final String BAD_BIT = "ERR bit is not an integer or out of range";

  private final long maxValueBytes;

  /** {@code maxValueBytes}: the longest value SETBIT may make (it bounds the bit offsets). */
  public BitmapCommands(long maxValueBytes) {
    this.maxValueBytes = maxValueBytes;
  }

  /**
   * A range of a value: {@code start} to {@code end}, both inclusive, negative positions counted
   * from the end, in bytes or bits.
   *
   * @param explicitEnd whether the caller gave the end (BITPOS then does not treat the bits after
   *     the range as zeros)
   */
  public record Range(long start, long end, Unit unit, boolean explicitEnd) {}

  /** What a {@link Range}'s positions count. */
  public enum Unit { BYTE, BIT }

  /**
   * Parses and checks a bit offset as Redis does: a strict integer, not negative, whose byte is
   * within the value size limit.
   *
   * @throws CommandException {@link #BAD_BIT_OFFSET}
   */
  public long bitOffset(byte[] arg) {
    if (!RedisNumbers.isLong(arg)) {
      throw new CommandException(BAD_BIT_OFFSET);
    }
    long offset = RedisNumbers.parseLong(arg);
    if (offset < 0 || (offset >>> 3) >= maxValueBytes) {
      throw new CommandException(BAD_BIT_OFFSET);
    }
    return offset;
  }

  /**
   * SETBIT: sets bit {@code offset} of the value of {@code key} to {@code bit} (0 or 1), growing
   * the value with zero bytes as needed; returns the bit before.
   *
   * @throws CommandException {@link #BAD_BIT_OFFSET}, {@link #BAD_BIT}
   */
  public int setBit(Table t, byte[] key, long offset, int bit) {
    if (offset < 0 || (offset >>> 3) >= maxValueBytes) {
      throw new CommandException(BAD_BIT_OFFSET);
    }
    if (bit != 0 && bit != 1) {
      throw new CommandException(BAD_BIT);
    }
    int byteIndex = (int) (offset >>> 3);
    int mask = 1 << (7 - (int) (offset & 7));
    int[] old = new int[1];
    t.updateEntries(List.of(key), cur -> {
      byte[] v = cur[0] == null ? null : cur[0].value();
      boolean grows = v == null || v.length <= byteIndex;
      old[0] = grows ? 0 : ((v[byteIndex] & mask) != 0 ? 1 : 0);
      if (!grows && old[0] == bit) {
        return null;
      }
      byte[] out = v == null ? new byte[byteIndex + 1]
          : Arrays.copyOf(v, Math.max(v.length, byteIndex + 1));
      out[byteIndex] = (byte) (bit == 1 ? out[byteIndex] | mask : out[byteIndex] & ~mask);
      return new WriteBatch().putOwned(key, out, StringCommands.KEEP_EXPIRY);
    });
    return old[0];
  }

  /** GETBIT: bit {@code offset} of the value of {@code key}; 0 past its end or when absent. */
  public int getBit(Table t, byte[] key, long offset) {
    byte[] v = t.getReadOnly(key);
    long byteIndex = offset >>> 3;
    if (v == null || byteIndex >= v.length) {
      return 0;
    }
    return (v[(int) byteIndex] & (1 << (7 - (int) (offset & 7)))) != 0 ? 1 : 0;
  }

  /** BITCOUNT: the set bits of the value of {@code key} in {@code range} (null: all of it). */
  public long bitCount(Table t, byte[] key, Range range) {
    byte[] v = t.getReadOnly(key);
    if (v == null) {
      return 0;
    }
    long[] bits = bitRange(v.length, range, true);
    if (bits == null) {
      return 0;
    }
    long count = 0;
    for (long first = bits[0], last = bits[1]; first <= last; ) {
      if ((first & 7) == 0 && last - first >= 7) {
        count += Integer.bitCount(v[(int) (first >>> 3)] & 0xFF);
        first += 8;
      } else {
        count += bitAt(v, first);
        first++;
      }
    }
    return count;
  }

  /**
   * BITPOS: the position of the first bit equal to {@code bit} (0 or 1) in {@code range} (null: all
   * of the value), counted from the start of the value, or -1 when there is none. A missing key
   * is all zero bits (0 for a clear bit, -1 for a set one); when looking for a clear bit without an
   * explicit end, the bits after the value count as zeros, so the answer is then the first bit after
   * the range.
   */
  public long bitPos(Table t, byte[] key, int bit, Range range) {
    byte[] v = t.getReadOnly(key);
    if (v == null) {
      return bit == 1 ? -1 : 0;
    }
    long[] bits = bitRange(v.length, range, false);
    if (bits == null) {
      return -1;
    }
    long first = bits[0];
    long last = bits[1];
    int skip = bit == 1 ? 0x00 : 0xFF; // a byte with no bit we look for
    while (first <= last) {
      if ((first & 7) == 0 && last - first >= 7 && (v[(int) (first >>> 3)] & 0xFF) == skip) {
        first += 8;
      } else if (bitAt(v, first) == bit) {
        return first;
      } else {
        first++;
      }
    }
    boolean explicitEnd = range != null && range.explicitEnd();
    return bit == 0 && !explicitEnd ? last + 1 : -1;
  }

  /**
   * The first and last bit of {@code range} in a value of {@code length} bytes, or null when the
   * range is empty. Negative positions count from the end; positions before the start become the
   * start and after the end the end, as Redis clamps them. {@code negativeStartAfterEnd}: BITCOUNT's
   * rule that two negative positions in the wrong order are an empty range before any clamping.
   */
  private static long[] bitRange(int length, Range range, boolean negativeStartAfterEnd) {
    if (range == null) {
      return length == 0 ? null : new long[] {0, 8L * length - 1};
    }
    long start = range.start();
    long end = range.end();
    if (negativeStartAfterEnd && start < 0 && end < 0 && start > end) {
      return null;
    }
    boolean bits = range.unit() == Unit.BIT;
    long total = bits ? 8L * length : length;
    if (start < 0) {
      start = Math.max(0, total + start);
    }
    if (end < 0) {
      end = Math.max(0, total + end);
    }
    if (end >= total) {
      end = total - 1;
    }
    if (start > end) {
      return null;
    }
    return bits ? new long[] {start, end} : new long[] {start * 8, end * 8 + 7};
  }

  private static int bitAt(byte[] v, long bit) {
    return (v[(int) (bit >>> 3)] >> (7 - (int) (bit & 7))) & 1;
  }
}
