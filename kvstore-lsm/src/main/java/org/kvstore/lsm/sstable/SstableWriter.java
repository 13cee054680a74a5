package org.kvstore.lsm.sstable;

import java.io.IOException;
import java.util.Arrays;
import org.kvstore.Entry;
import org.kvstore.codec.FixedLE;
import org.kvstore.codec.Varints;
import org.kvstore.io.StorageFile;
import org.kvstore.lsm.bloom.BloomFilterBuilder;
import org.kvstore.lsm.bloom.BloomFormat;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.ValueKind;

/**
 * Writes one SSTable (docs/format/sstable.md) in {@link SstableFormat#FORMAT_VERSION} from entries
 * added in internal-key order: data blocks of about {@code blockSize} bytes, then the bloom filter
 * block, the index block and the footer; {@link #finish()} syncs the file. It counts the entries
 * later compactions may reclaim ({@link FileStats}).
 *
 * <p>Thread safety: confined to one thread (a flush or compaction job).
 */
public final class SstableWriter implements AutoCloseable {
  private static final int OUT_BUFFER = 1 << 20;
  private static final byte[] EMPTY = new byte[0];

  private final StorageFile file;
  private final int blockSize;
  private final BlockCompression compression;
  private final BlockBuilder data = new BlockBuilder();
  private final BlockBuilder index = new BlockBuilder();
  private final BloomFilterBuilder bloom;
  private byte[] out = new byte[OUT_BUFFER];
  private int outLen;
  private long fileOffset;
  private byte[] keyBuf = new byte[64];
  private final byte[] metaBuf = new byte[SstableFormat.MAX_ENTRY_META_BYTES];
  private final FileStats.Builder stats = new FileStats.Builder();
  private byte[] smallestKey;
  private byte[] largestKey;
  private long smallestSeq = Long.MAX_VALUE;
  private long largestSeq;
  private long entries;
  private byte[] lastUserKey;
  private boolean finished;
  private BlockCache fillCache;
  private long fillFileNum;
  private long fillBudget;
  private long filledBytes;

  public SstableWriter(StorageFile file, int blockSize, double bloomFpRate, BlockCompression compression) {
    this.file = file;
    this.blockSize = blockSize;
    this.compression = compression;
    this.bloom = new BloomFilterBuilder(bloomFpRate);
  }

  /**
   * Puts each data block, as written, into {@code cache} under {@code fileNum} too, so the file's
   * first readers find it there. A caller that abandons the file evicts it from the cache.
   */
  public void fillCache(BlockCache cache, long fileNum) {
    fillCache(cache, fileNum, Long.MAX_VALUE);
  }

  /**
   * As {@link #fillCache(BlockCache, long)}, but stops once the blocks put in the cache hold
   * {@code budgetBytes} ({@link #cacheFilledBytes}).
   */
  public void fillCache(BlockCache cache, long fileNum, long budgetBytes) {
    this.fillCache = cache;
    this.fillFileNum = fileNum;
    this.fillBudget = budgetBytes;
  }

  /** Bytes of the blocks put into the cache by {@link #fillCache}. */
  public long cacheFilledBytes() {
    return filledBytes;
  }

  /**
   * Adds an entry of version 0 without expiry. REQUIRES: {@code (userKey, seqNum)} sorts after
   * every entry added before.
   */
  public void add(byte[] userKey, long seqNum, ValueKind kind, byte[] value) throws IOException {
    add(userKey, BloomFormat.hash(userKey), seqNum, kind, value, 0, Entry.NO_EXPIRY);
  }

  /**
   * Adds an entry of {@code version} that expires at {@code expiresAt} ({@link Entry#NO_EXPIRY}:
   * never; ignored for a delete), with the key's {@link BloomFormat#hash} computed by the caller,
   * which needs it too (for the row cache). REQUIRES: {@code (userKey, seqNum)} sorts after every
   * entry added before.
   */
  public void add(
      byte[] userKey, long keyHash, long seqNum, ValueKind kind, byte[] value, long version, long expiresAt)
      throws IOException {
    add(userKey, keyHash, seqNum, kind, value, value == null ? 0 : value.length, version, expiresAt);
  }

  /**
   * {@link #add(byte[], long, long, ValueKind, byte[], long, long)} of a value that is the first
   * {@code valueLen} bytes of {@code value} (a reused buffer: the writer copies them).
   */
  public void add(
      byte[] userKey, long keyHash, long seqNum, ValueKind kind, byte[] value, int valueLen, long version,
      long expiresAt) throws IOException {
    int keyLen = userKey.length + InternalKey.TRAILER_BYTES;
    if (keyBuf.length < keyLen) {
      keyBuf = new byte[Math.max(keyLen, keyBuf.length * 2)];
    }
    System.arraycopy(userKey, 0, keyBuf, 0, userKey.length);
    InternalKey.putTrailer(keyBuf, userKey.length, (seqNum << 8) | kind.code());
    if (smallestKey == null) {
      smallestKey = userKey.clone();
    }
    largestKey = userKey;
    smallestSeq = Math.min(smallestSeq, seqNum);
    largestSeq = Math.max(largestSeq, seqNum);
    if (lastUserKey == null || !Arrays.equals(lastUserKey, userKey)) {
      bloom.addHash(keyHash);
      lastUserKey = userKey;
    }
    byte[] v;
    int vLen;
    int metaLen;
    if (kind == ValueKind.DELETE) {
      v = EMPTY;
      vLen = 0;
      metaLen = SstableFormat.putEntryMeta(metaBuf, 0, version, Entry.NO_EXPIRY);
      stats.addTombstone();
    } else {
      v = value;
      vLen = valueLen;
      metaLen = SstableFormat.putEntryMeta(metaBuf, 0, version, expiresAt);
      stats.addPut(expiresAt);
    }
    data.add(keyBuf, keyLen, metaBuf, metaLen, v, 0, vLen);
    entries++;
    if (data.estimatedSize() >= blockSize) {
      flushDataBlock();
    }
  }

  /** Bytes written so far, including the block being built. */
  public long estimatedFileSize() {
    return fileOffset + outLen + data.estimatedSize();
  }

  public long entryCount() {
    return entries;
  }

  private void flushDataBlock() throws IOException {
    if (data.isEmpty()) {
      return;
    }
    byte[] last = data.lastKey();
    byte[] contents = data.finish();
    int len = data.size();
    BlockHandle h = writeBlock(contents, len, compression);
    if (fillCache != null && filledBytes < fillBudget) {
      fillCache.put(fillFileNum, h.offset(), contents, len);
      filledBytes += len;
    }
    data.reset();
    byte[] handle = new byte[20];
    int n = Varints.put(handle, 0, h.offset());
    n = Varints.put(handle, n, h.size());
    index.add(last, last.length, handle, 0, n);
  }

  private BlockHandle writeBlock(byte[] contents, int len, BlockCompression c) throws IOException {
    byte[] stored = contents;
    int storedLen = len;
    int type = SstableFormat.COMPRESSION_NONE;
    if (c == BlockCompression.LZ4) {
      byte[] z = BlockCompression.compressLz4(contents, len);
      if (z != null) {
        stored = z;
        storedLen = z.length;
        type = SstableFormat.COMPRESSION_LZ4;
      }
    }
    long offset = fileOffset + outLen;
    append(stored, storedLen);
    byte[] trailer = new byte[SstableFormat.BLOCK_TRAILER_BYTES];
    trailer[0] = (byte) type;
    FixedLE.putInt(trailer, 1, SstableFormat.blockCrc(stored, 0, storedLen, type));
    append(trailer, trailer.length);
    return new BlockHandle(offset, storedLen);
  }

  private void append(byte[] b, int len) throws IOException {
    if (outLen + len > out.length) {
      flushOut();
      if (len > out.length) {
        file.writeFully(java.nio.ByteBuffer.wrap(b, 0, len), fileOffset);
        fileOffset += len;
        return;
      }
    }
    System.arraycopy(b, 0, out, outLen, len);
    outLen += len;
  }

  private void flushOut() throws IOException {
    if (outLen > 0) {
      file.writeFully(java.nio.ByteBuffer.wrap(out, 0, outLen), fileOffset);
      fileOffset += outLen;
      outLen = 0;
    }
  }

  /** What {@link #finish()} produced. Thread safety: immutable. */
  public record Result(
      long fileSize, long entries, byte[] smallestKey, byte[] largestKey, long smallestSeq, long largestSeq,
      FileStats stats) {}

  /**
   * Writes the filter, index and footer, syncs and closes the file. REQUIRES: at least one entry.
   */
  public Result finish() throws IOException {
    if (entries == 0) {
      throw new IllegalStateException("an SSTable needs at least one entry");
    }
    flushDataBlock();
    byte[] filter = bloom.finish();
    BlockHandle filterHandle = writeBlock(filter, filter.length, BlockCompression.NONE);
    byte[] idx = index.finish();
    BlockHandle indexHandle = writeBlock(idx, index.size(), BlockCompression.NONE);
    byte[] footer = new Footer(filterHandle, indexHandle, entries).encode();
    append(footer, footer.length);
    flushOut();
    file.sync();
    file.close();
    finished = true;
    return new Result(
        fileOffset, entries, smallestKey, largestKey.clone(), smallestSeq, largestSeq, stats.build());
  }

  /** Closes the file without finishing (an abandoned output; the caller deletes it). */
  @Override
  public void close() throws IOException {
    if (!finished) {
      finished = true;
      file.close();
    }
  }
}
