package org.kvstore.lsm.key;

import java.util.Arrays;
import org.kvstore.codec.FixedLE;

/**
 * A user key tagged with the sequence number of the write and its kind. Internal keys order by user
 * key (unsigned bytes) ascending, then by sequence number <em>descending</em>, so the newest version
 * of a key comes first (see {@link InternalKeyComparator}).
 *
 * <p>On disk an internal key is the user key followed by an 8-byte little-endian trailer
 * {@code seqNum << 8 | kind} (docs/format/sstable.md).
 *
 * <p>Thread safety: immutable (the user key array is never modified after construction).
 *
 * @param userKey the user's key; owned by this object
 * @param seqNum the write's sequence number, {@code 0 <= seqNum <= MAX_SEQ_NUM}
 * @param kind put or delete
 */
public record InternalKey(byte[] userKey, long seqNum, ValueKind kind) implements Comparable<InternalKey> {
  /** The largest sequence number: 56 bits, the trailer keeps 8 bits for the kind. */
  public static final long MAX_SEQ_NUM = (1L << 56) - 1;
  /** Bytes of the trailer after the user key. */
  public static final int TRAILER_BYTES = 8;

  /** The key that sorts before every version of {@code userKey} visible at {@code seqNum}. */
  public static InternalKey seekKey(byte[] userKey, long seqNum) {
    return new InternalKey(userKey, seqNum, ValueKind.PUT);
  }

  /** The packed trailer {@code seqNum << 8 | kind}. */
  public long trailer() {
    return (seqNum << 8) | kind.code();
  }

  /** Encodes user key plus trailer into a fresh array. */
  public byte[] encode() {
    byte[] out = new byte[userKey.length + TRAILER_BYTES];
    System.arraycopy(userKey, 0, out, 0, userKey.length);
    putTrailer(out, userKey.length, trailer());
    return out;
  }

  /** Writes {@code trailer} little-endian at {@code off}. */
  public static void putTrailer(byte[] dst, int off, long trailer) {
    for (int i = 0; i < 8; i++) {
      dst[off + i] = (byte) (trailer >>> (8 * i));
    }
  }

  /** Reads the little-endian trailer at {@code off}. */
  public static long getTrailer(byte[] src, int off) {
    return FixedLE.getLong(src, off);
  }

  @Override
  public int compareTo(InternalKey o) {
    return InternalKeyComparator.compare(userKey, seqNum, kind.code(), o.userKey, o.seqNum, o.kind.code());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InternalKey k
        && seqNum == k.seqNum
        && kind == k.kind
        && Arrays.equals(userKey, k.userKey);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(userKey) * 31 + Long.hashCode(seqNum);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (byte b : userKey) {
      int c = b & 0xFF;
      if (c >= 0x20 && c < 0x7F && c != '\\') {
        sb.append((char) c);
      } else {
        sb.append(String.format("\\x%02x", c));
      }
    }
    return sb + "@" + seqNum + ":" + kind;
  }
}
