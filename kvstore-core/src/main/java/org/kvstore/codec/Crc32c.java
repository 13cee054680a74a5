package org.kvstore.codec;

import java.util.zip.CRC32C;

/**
 * CRC32C (Castagnoli, {@link java.util.zip.CRC32C}: hardware-accelerated where the CPU has it) as
 * an {@code int}, and the masked form the write-ahead log stores ({@link #mask}). Each format doc
 * says exactly which bytes its checksum covers; the overloads here cover those shapes: a range, a
 * byte before a range (a WAL fragment's type and data), a range then a byte (an SSTable block's
 * contents and compression byte).
 *
 * <p>Calls allocate nothing after a thread's first: each thread reuses one {@link CRC32C}, reset
 * at the start of every call (a checksum is computed within one call, so uses cannot interleave).
 *
 * <p>Thread safety: thread-safe (the scratch state is per thread).
 */
public final class Crc32c {
  /** LevelDB's mask constant (docs/format/wal.md). */
  private static final int MASK_DELTA = 0xa282ead8;

  private static final ThreadLocal<CRC32C> SCRATCH = ThreadLocal.withInitial(CRC32C::new);

  private Crc32c() {}

  /** The CRC32C of {@code b[off, off+len)}. */
  public static int of(byte[] b, int off, int len) {
    CRC32C c = scratch();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  /** The CRC32C of the byte {@code first} followed by {@code b[off, off+len)}. */
  public static int of(byte first, byte[] b, int off, int len) {
    CRC32C c = scratch();
    c.update(first);
    c.update(b, off, len);
    return (int) c.getValue();
  }

  /** The CRC32C of {@code b[off, off+len)} followed by the byte {@code last}. */
  public static int of(byte[] b, int off, int len, byte last) {
    CRC32C c = scratch();
    c.update(b, off, len);
    c.update(last);
    return (int) c.getValue();
  }

  /**
   * The masked form of {@code crc}: rotated right by 15 bits plus a constant (LevelDB's), so that
   * the CRC of bytes that themselves hold CRCs is not trivially related to them.
   */
  public static int mask(int crc) {
    return ((crc >>> 15) | (crc << 17)) + MASK_DELTA;
  }

  /** The CRC that {@link #mask} turned into {@code masked}. */
  public static int unmask(int masked) {
    int rot = masked - MASK_DELTA;
    return (rot >>> 17) | (rot << 15);
  }

  private static CRC32C scratch() {
    CRC32C c = SCRATCH.get();
    c.reset();
    return c;
  }
}
