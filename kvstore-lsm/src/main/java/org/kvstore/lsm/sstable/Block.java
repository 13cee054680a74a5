package org.kvstore.lsm.sstable;

import java.util.Arrays;
import org.kvstore.codec.FixedLE;
import org.kvstore.codec.Varints;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.InternalKeyComparator;

/**
 * The decoded (checksum-verified, uncompressed) contents of one block, with a cursor over its
 * entries. Entry keys are encoded internal keys (data blocks) or the last key of a data block
 * (index block).
 *
 * <p>Thread safety: immutable; each {@link Iter} is confined to one thread.
 */
public final class Block {
  private final byte[] data;
  private final int restartsOffset;
  private final int numRestarts;

  /**
   * Wraps block contents.
   *
   * @throws IllegalArgumentException when the restart array does not fit (the caller names file
   *     and offset)
   */
  public Block(byte[] data) {
    this(data, data.length);
  }

  /**
   * Wraps the block contents {@code data[0, length)} (the array may be longer, for example a reused
   * read buffer; it must not change while the block is in use).
   *
   * @throws IllegalArgumentException when the restart array does not fit
   */
  public Block(byte[] data, int length) {
    if (length < 4 || length > data.length) {
      throw new IllegalArgumentException("block of " + length + " bytes is too short");
    }
    this.data = data;
    this.numRestarts = FixedLE.getInt(data, length - 4);
    long ro = (long) length - 4 - 4L * numRestarts;
    if (numRestarts < 1 || ro < 0) {
      throw new IllegalArgumentException("bad restart count " + numRestarts);
    }
    this.restartsOffset = (int) ro;
  }

  /** Heap bytes held, for the block cache's accounting. */
  public int memoryBytes() {
    return data.length + 64;
  }

  public Iter iterator() {
    return new Iter();
  }

  private int restartPoint(int i) {
    return FixedLE.getInt(data, restartsOffset + 4 * i);
  }

  /**
   * A cursor over the block's entries.
   *
   * <p>Thread safety: confined.
   */
  public final class Iter {
    private final int[] pos = new int[1];
    private int current = -1; // offset of the current entry; -1 = invalid
    private int next; // offset of the entry after the current one
    private byte[] key = new byte[64];
    private int keyLen;
    private int valueOff;
    private int valueLen;

    public boolean isValid() {
      return current >= 0;
    }

    public void seekToFirst() {
      keyLen = 0;
      next = 0;
      advance();
    }

    /** Positions on the first entry whose encoded key is at or after {@code target}. */
    public void seek(byte[] target, int targetLen) {
      int lo = 0;
      int hi = numRestarts - 1;
      // Binary search for the last restart whose key is < target.
      while (lo < hi) {
        int mid = (lo + hi + 1) >>> 1;
        int p = restartPoint(mid);
        pos[0] = p;
        int shared = Varints.getInt(data, pos, restartsOffset);
        int unshared = Varints.getInt(data, pos, restartsOffset);
        Varints.getInt(data, pos, restartsOffset);
        if (shared != 0 || pos[0] + unshared > restartsOffset) {
          throw new IllegalArgumentException("bad restart entry at " + p);
        }
        if (InternalKeyComparator.compareEncoded(data, pos[0], unshared, target, 0, targetLen) < 0) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      keyLen = 0;
      next = restartPoint(lo);
      advance();
      while (current >= 0
          && InternalKeyComparator.compareEncoded(key, 0, keyLen, target, 0, targetLen) < 0) {
        advance();
      }
    }

    public void next() {
      advance();
    }

    private void advance() {
      if (next >= restartsOffset) {
        current = -1;
        return;
      }
      pos[0] = next;
      int shared = Varints.getInt(data, pos, restartsOffset);
      int unshared = Varints.getInt(data, pos, restartsOffset);
      int vlen = Varints.getInt(data, pos, restartsOffset);
      int p = pos[0];
      if (shared > keyLen || (long) p + unshared + vlen > restartsOffset) {
        throw new IllegalArgumentException("bad block entry at " + next);
      }
      int newLen = shared + unshared;
      if (key.length < newLen) {
        key = Arrays.copyOf(key, Math.max(newLen, key.length * 2));
      }
      System.arraycopy(data, p, key, shared, unshared);
      keyLen = newLen;
      valueOff = p + unshared;
      valueLen = vlen;
      current = next;
      next = valueOff + vlen;
      if (keyLen < InternalKey.TRAILER_BYTES) {
        throw new IllegalArgumentException("block key shorter than its trailer at " + current);
      }
    }

    /** The current encoded key; valid until the next move. */
    public byte[] keyBuffer() {
      return key;
    }

    public int keyLength() {
      return keyLen;
    }

    /** A copy of the user-key part of the current key. */
    public byte[] userKey() {
      return Arrays.copyOf(key, keyLen - InternalKey.TRAILER_BYTES);
    }

    public long trailer() {
      return InternalKey.getTrailer(key, keyLen - InternalKey.TRAILER_BYTES);
    }

    /** A copy of the current value. */
    public byte[] value() {
      return Arrays.copyOfRange(data, valueOff, valueOff + valueLen);
    }

    public byte[] data() {
      return data;
    }

    public int valueOffset() {
      return valueOff;
    }

    public int valueLength() {
      return valueLen;
    }

    /** True when the current key's user-key part equals {@code userKey}. */
    public boolean userKeyEquals(byte[] userKey) {
      return keyLen - InternalKey.TRAILER_BYTES == userKey.length
          && Arrays.equals(key, 0, userKey.length, userKey, 0, userKey.length);
    }
  }
}
