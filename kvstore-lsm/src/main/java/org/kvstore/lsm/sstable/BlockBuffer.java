package org.kvstore.lsm.sstable;

/**
 * A reusable array that a block is read or copied into: a cached block leaves the cache's
 * off-heap memory only as a copy into its reader's buffer, so a read allocates no block.
 *
 * <p>Thread safety: confined to one reader (a thread's point lookups, or one cursor). A
 * {@link Block} made over {@link #bytes()} is valid until the buffer's next use.
 */
public final class BlockBuffer {
  private static final int INITIAL_BYTES = 16 << 10;
  private byte[] bytes;

  /** The array, grown (not copied) to at least {@code length} bytes. */
  public byte[] ensure(int length) {
    byte[] b = bytes;
    if (b == null || b.length < length) {
      b = new byte[Math.max(length, INITIAL_BYTES)];
      bytes = b;
    }
    return b;
  }

  /** The array last returned by {@link #ensure}. */
  public byte[] bytes() {
    return bytes;
  }
}
