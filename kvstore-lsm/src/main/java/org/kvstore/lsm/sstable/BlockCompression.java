package org.kvstore.lsm.sstable;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.kvstore.codec.FixedLE;

/**
 * Block compression of the {@code compression} property. LZ4 goes through lz4-java; a block whose
 * LZ4 form would not save at least 1/8 is stored uncompressed (its trailer says which).
 *
 * <p>Thread safety: immutable; the lz4-java compressor and decompressor are thread-safe.
 */
public enum BlockCompression {
  NONE,
  LZ4;

  private static final LZ4Factory FACTORY = LZ4Factory.fastestInstance();
  private static final LZ4Compressor COMPRESSOR = FACTORY.fastCompressor();
  private static final LZ4SafeDecompressor DECOMPRESSOR = FACTORY.safeDecompressor();

  /**
   * LZ4-compresses {@code raw[0, len)} into stored contents: the uncompressed length as u32 LE, then
   * the LZ4 block. Returns {@code null} when compression does not pay.
   */
  static byte[] compressLz4(byte[] raw, int len) {
    byte[] out = new byte[4 + COMPRESSOR.maxCompressedLength(len)];
    FixedLE.putInt(out, 0, len);
    int n = COMPRESSOR.compress(raw, 0, len, out, 4, out.length - 4);
    if (4 + n > len - len / 8) {
      return null;
    }
    return java.util.Arrays.copyOf(out, 4 + n);
  }

  /**
   * Expands stored LZ4 contents.
   *
   * @throws IllegalArgumentException when they do not decode to the recorded length
   */
  static byte[] decompressLz4(byte[] stored, int len) {
    if (len < 4) {
      throw new IllegalArgumentException("LZ4 block shorter than its length prefix");
    }
    int rawLen = FixedLE.getInt(stored, 0);
    if (rawLen < 0 || rawLen > (1 << 30)) {
      throw new IllegalArgumentException("bad LZ4 uncompressed length " + rawLen);
    }
    byte[] raw = new byte[rawLen];
    try {
      int n = DECOMPRESSOR.decompress(stored, 4, len - 4, raw, 0, rawLen);
      if (n != rawLen) {
        throw new IllegalArgumentException("LZ4 block decoded to " + n + " bytes, expected " + rawLen);
      }
    } catch (net.jpountz.lz4.LZ4Exception e) {
      throw new IllegalArgumentException("LZ4 block does not decode: " + e.getMessage());
    }
    return raw;
  }
}
