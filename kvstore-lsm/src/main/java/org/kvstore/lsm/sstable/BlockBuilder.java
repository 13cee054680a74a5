package org.kvstore.lsm.sstable;

import java.util.Arrays;
import org.kvstore.codec.FixedLE;
import org.kvstore.codec.Varints;

/**
 * Builds the uncompressed contents of one block: prefix-compressed entries with a full key every
 * {@link SstableFormat#RESTART_INTERVAL} entries, then the restart offsets and their count
 * (docs/format/sstable.md, "Block contents").
 *
 * <p>Thread safety: confined to one thread.
 */
public final class BlockBuilder {
  private byte[] buf = new byte[8192];
  private int size;
  private int[] restarts = new int[16];
  private int numRestarts;
  private int sinceRestart;
  private byte[] lastKey = new byte[0];
  private int lastKeyLen;
  private int entries;

  /** Appends an entry. REQUIRES: {@code key} sorts after the previous key of this block. */
  public void add(byte[] key, int keyLen, byte[] value, int valueOff, int valueLen) {
    add(key, keyLen, value, 0, value, valueOff, valueLen);
  }

  /**
   * Appends an entry whose value field is {@code head[0, headLen)} followed by
   * {@code value[valueOff, valueOff+valueLen)}. REQUIRES: {@code key} sorts after the previous key
   * of this block.
   */
  public void add(
      byte[] key, int keyLen, byte[] head, int headLen, byte[] value, int valueOff, int valueLen) {
    int shared = 0;
    if (sinceRestart < SstableFormat.RESTART_INTERVAL && entries > 0) {
      int max = Math.min(keyLen, lastKeyLen);
      while (shared < max && key[shared] == lastKey[shared]) {
        shared++;
      }
    } else {
      if (numRestarts == restarts.length) {
        restarts = Arrays.copyOf(restarts, numRestarts * 2);
      }
      restarts[numRestarts++] = size;
      sinceRestart = 0;
    }
    int unshared = keyLen - shared;
    ensure(15 + unshared + headLen + valueLen);
    size = Varints.put(buf, size, shared);
    size = Varints.put(buf, size, unshared);
    size = Varints.put(buf, size, headLen + valueLen);
    System.arraycopy(key, shared, buf, size, unshared);
    size += unshared;
    System.arraycopy(head, 0, buf, size, headLen);
    size += headLen;
    System.arraycopy(value, valueOff, buf, size, valueLen);
    size += valueLen;
    if (lastKey.length < keyLen) {
      lastKey = new byte[Math.max(keyLen, lastKey.length * 2)];
    }
    System.arraycopy(key, 0, lastKey, 0, keyLen);
    lastKeyLen = keyLen;
    sinceRestart++;
    entries++;
  }

  private void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }

  /** Bytes the block will have when finished now. */
  public int estimatedSize() {
    return size + 4 * numRestarts + 4;
  }

  public boolean isEmpty() {
    return entries == 0;
  }

  /** The last key added. */
  public byte[] lastKey() {
    return Arrays.copyOf(lastKey, lastKeyLen);
  }

  /** Finishes the block; returns its contents, valid until {@link #reset()}. Length via {@link #size()}. */
  public byte[] finish() {
    if (numRestarts == 0) {
      restarts[numRestarts++] = 0;
    }
    ensure(4 * numRestarts + 4);
    for (int i = 0; i < numRestarts; i++) {
      FixedLE.putInt(buf, size, restarts[i]);
      size += 4;
    }
    FixedLE.putInt(buf, size, numRestarts);
    size += 4;
    return buf;
  }

  public int size() {
    return size;
  }

  public void reset() {
    size = 0;
    numRestarts = 0;
    sinceRestart = 0;
    lastKeyLen = 0;
    entries = 0;
  }
}
