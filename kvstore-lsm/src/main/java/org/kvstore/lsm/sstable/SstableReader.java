package org.kvstore.lsm.sstable;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.kvstore.CorruptionException;
import org.kvstore.Entry;
import org.kvstore.codec.FixedBE;
import org.kvstore.codec.FixedLE;
import org.kvstore.codec.Varints;
import org.kvstore.lsm.bloom.BloomFilter;
import org.kvstore.lsm.cursor.InternalCursor;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.InternalKeyComparator;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;

/**
 * Reads one SSTable. Opening it reads and verifies the footer, the index block and the bloom
 * filter, which stay in memory for the reader's life (they are small: about 1/100 and 10 bits per
 * key); data blocks come from the shared {@link BlockCache} or the file, and every block's CRC32C is
 * checked before use, so damage surfaces as a {@link CorruptionException} naming the file and the
 * block's offset, never as a wrong value. Reads both format versions: a version-1 file's entries
 * report version 0 and no expiry.
 *
 * <p>Thread safety: immutable after open; many threads may look up and run cursors at once.
 */
public final class SstableReader {
  private static final int READAHEAD_BYTES = 512 * 1024;

  private final long fileNum;
  private final Path path;
  private final OpenFiles files;
  private final BlockCache cache;
  private final long fileSize;
  private final BloomFilter bloom;
  private final byte[][] indexKeys;
  /** User-key bytes every index key starts with (of the first and last, so of all). */
  private final int indexCommonPrefix;
  /**
   * Per index key, the 8 user-key bytes after {@link #indexCommonPrefix} as a big-endian number
   * (zero-padded): the block search compares these contiguous numbers and loads a key's array only
   * on a tie. A strict difference orders the user keys the same way, and so the internal keys.
   */
  private final long[] indexInline;
  private final long[] blockOffsets;
  private final int[] blockSizes;
  private final long entryCount;
  /** Whether entries carry version and expiry (format version 2 on). */
  private final boolean entriesHaveMeta;

  private SstableReader(
      long fileNum, Path path, OpenFiles files, BlockCache cache, long fileSize, BloomFilter bloom,
      byte[][] indexKeys, long[] blockOffsets, int[] blockSizes, long entryCount, int formatVersion) {
    this.fileNum = fileNum;
    this.path = path;
    this.files = files;
    this.cache = cache;
    this.fileSize = fileSize;
    this.bloom = bloom;
    this.indexKeys = indexKeys;
    this.indexCommonPrefix = commonUserKeyPrefix(indexKeys);
    this.indexInline = new long[indexKeys.length];
    for (int i = 0; i < indexKeys.length; i++) {
      byte[] k = indexKeys[i];
      indexInline[i] = FixedBE.getLongPadded(k, indexCommonPrefix, k.length - InternalKey.TRAILER_BYTES);
    }
    this.blockOffsets = blockOffsets;
    this.blockSizes = blockSizes;
    this.entryCount = entryCount;
    this.entriesHaveMeta = formatVersion != SstableFormat.FORMAT_VERSION_1;
  }

  /**
   * Opens the SSTable {@code fileNum}.
   *
   * @throws CorruptionException when footer, index or filter fail their checks
   */
  public static SstableReader open(long fileNum, OpenFiles files, BlockCache cache) throws IOException {
    Path path = files.path(fileNum);
    OpenFiles.Handle h = files.acquire(fileNum);
    try {
      long size = h.file.size();
      if (size < SstableFormat.FOOTER_BYTES) {
        throw new CorruptionException(path, 0, "file of " + size + " bytes is shorter than an SSTable footer");
      }
      byte[] fb = new byte[SstableFormat.FOOTER_BYTES];
      h.file.readFully(ByteBuffer.wrap(fb), size - SstableFormat.FOOTER_BYTES);
      Footer footer = Footer.decode(fb, path, size);
      byte[] filterRaw = readVerified(h, path, footer.filter());
      BloomFilter bloom;
      try {
        bloom = BloomFilter.decode(filterRaw);
      } catch (IllegalArgumentException e) {
        throw new CorruptionException(path, footer.filter().offset(), e.getMessage());
      }
      byte[] indexRaw = readVerified(h, path, footer.index());
      List<byte[]> keys = new ArrayList<>();
      List<long[]> handles = new ArrayList<>();
      try {
        Block.Iter it = new Block(indexRaw).iterator();
        int[] pos = new int[1];
        for (it.seekToFirst(); it.isValid(); it.next()) {
          keys.add(java.util.Arrays.copyOf(it.keyBuffer(), it.keyLength()));
          pos[0] = it.valueOffset();
          int limit = it.valueOffset() + it.valueLength();
          long off = Varints.get(it.data(), pos, limit);
          long sz = Varints.get(it.data(), pos, limit);
          if (off < 0 || sz < 0 || off + sz + SstableFormat.BLOCK_TRAILER_BYTES > footer.filter().offset()) {
            throw new IllegalArgumentException("data block handle " + off + "+" + sz + " outside the data area");
          }
          handles.add(new long[] {off, sz});
        }
      } catch (IllegalArgumentException e) {
        throw new CorruptionException(path, footer.index().offset(), "bad index block: " + e.getMessage());
      }
      int n = keys.size();
      long[] offsets = new long[n];
      int[] sizes = new int[n];
      for (int i = 0; i < n; i++) {
        offsets[i] = handles.get(i)[0];
        sizes[i] = (int) handles.get(i)[1];
      }
      return new SstableReader(
          fileNum, path, files, cache, size, bloom, keys.toArray(new byte[0][]), offsets, sizes,
          footer.entryCount(), footer.formatVersion());
    } catch (EOFException e) {
      throw new CorruptionException(path, -1, "truncated SSTable: " + e.getMessage());
    } finally {
      files.release(h);
    }
  }

  private static byte[] readVerified(OpenFiles.Handle h, Path path, BlockHandle bh) throws IOException {
    byte[] buf = new byte[bh.size() + SstableFormat.BLOCK_TRAILER_BYTES];
    h.file.readFully(ByteBuffer.wrap(buf), bh.offset());
    return decodeStored(path, bh.offset(), buf, 0, bh.size());
  }

  /** Verifies the trailer of stored contents at {@code buf[off, off+size+5)} and decompresses. */
  private static byte[] decodeStored(Path path, long fileOffset, byte[] buf, int off, int size) {
    verifyStored(path, fileOffset, buf, off, size);
    int type = buf[off + size] & 0xFF;
    try {
      if (type == SstableFormat.COMPRESSION_NONE) {
        return off == 0 && buf.length == size ? buf : java.util.Arrays.copyOfRange(buf, off, off + size);
      } else if (type == SstableFormat.COMPRESSION_LZ4) {
        byte[] stored = java.util.Arrays.copyOfRange(buf, off, off + size);
        return BlockCompression.decompressLz4(stored, size);
      }
    } catch (IllegalArgumentException e) {
      throw new CorruptionException(path, fileOffset, e.getMessage());
    }
    throw new CorruptionException(path, fileOffset + size, "unknown block compression " + type);
  }

  public long fileNum() {
    return fileNum;
  }

  public Path path() {
    return path;
  }

  public long fileSize() {
    return fileSize;
  }

  public long entryCount() {
    return entryCount;
  }

  /** Heap bytes of the resident index and filter. */
  public long memoryBytes() {
    long n = bloom.memoryBytes() + 20L * indexKeys.length;
    for (byte[] k : indexKeys) {
      n += k.length + 16;
    }
    return n;
  }

  public boolean mayContain(byte[] userKey) {
    return bloom.mayContain(userKey);
  }

  private static int commonUserKeyPrefix(byte[][] keys) {
    if (keys.length == 0) {
      return 0;
    }
    byte[] first = keys[0];
    byte[] last = keys[keys.length - 1];
    int max = Math.min(first.length, last.length) - InternalKey.TRAILER_BYTES;
    int n = 0;
    while (n < max && first[n] == last[n]) {
      n++;
    }
    return n;
  }

  /** The index of the first block whose last key is at or after {@code target}, or the block count. */
  private int findBlock(byte[] target, int targetLen) {
    int n = indexKeys.length;
    int cp = indexCommonPrefix;
    int targetUserLen = targetLen - InternalKey.TRAILER_BYTES;
    if (n == 0 || targetUserLen < cp) {
      return findBlockByKeys(target, targetLen);
    }
    int c = Arrays.compareUnsigned(target, 0, cp, indexKeys[0], 0, cp);
    if (c != 0) {
      return c < 0 ? 0 : n; // below every index key, or above every one
    }
    long t = FixedBE.getLongPadded(target, cp, targetUserLen);
    int lo = 0;
    int hi = n;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      long v = indexInline[mid];
      int cmp;
      if (v != t) {
        cmp = Long.compareUnsigned(v, t);
      } else {
        byte[] k = indexKeys[mid];
        cmp = InternalKeyComparator.compareEncoded(k, 0, k.length, target, 0, targetLen);
      }
      if (cmp < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** {@link #findBlock} comparing whole keys only. */
  private int findBlockByKeys(byte[] target, int targetLen) {
    int lo = 0;
    int hi = indexKeys.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      byte[] k = indexKeys[mid];
      if (InternalKeyComparator.compareEncoded(k, 0, k.length, target, 0, targetLen) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * The newest entry of {@code userKey} at or below {@code snapshotSeq}, or {@code null}. Checks the
   * bloom filter before reading any block. The value is the caller's own.
   */
  public Lookup get(byte[] userKey, long snapshotSeq) throws IOException {
    return get(userKey, org.kvstore.lsm.bloom.BloomFormat.hash(userKey), snapshotSeq);
  }

  /**
   * As {@link #get(byte[], long)} with the key's precomputed bloom hash. A read of the newest
   * entry ({@code snapshotSeq} {@link InternalKey#MAX_SEQ_NUM}) looks in the row cache first (when
   * the table keeps rows) and offers what it finds to it. The value is the caller's own.
   */
  public Lookup get(byte[] userKey, long bloomHash, long snapshotSeq) throws IOException {
    boolean rows = snapshotSeq == InternalKey.MAX_SEQ_NUM && cache.cachesRows();
    if (rows) {
      Lookup r = cache.getRow(fileNum, bloomHash, userKey);
      if (r != null) {
        return r;
      }
    }
    Lookup found = find(userKey, bloomHash, snapshotSeq);
    if (rows && found != null && cache.admitRow(fileNum, bloomHash)) {
      cache.putRow(fileNum, bloomHash, userKey.clone(), found);
    }
    return found;
  }

  /** The lookup itself: bloom filter, index, block. */
  private Lookup find(byte[] userKey, long bloomHash, long snapshotSeq) throws IOException {
    if (!bloom.mayContainHash(bloomHash)) {
      return null;
    }
    byte[] target = InternalKey.seekKey(userKey, snapshotSeq).encode();
    int i = findBlock(target, target.length);
    if (i == indexKeys.length) {
      return null;
    }
    Block.Iter it = readBlock(i, null, GET_BUFFER.get()).iterator();
    try {
      it.seek(target, target.length);
    } catch (IllegalArgumentException e) {
      throw new CorruptionException(path, blockOffsets[i], "bad data block: " + e.getMessage());
    }
    if (!it.isValid() || !it.userKeyEquals(userKey)) {
      return null;
    }
    long trailer = it.trailer();
    ValueKind kind = kindOf(trailer, i);
    if (!entriesHaveMeta) {
      return new Lookup(trailer >>> 8, kind, it.value(), 0, Entry.NO_EXPIRY);
    }
    long[] meta = new long[2];
    int valueStart = decodeMeta(it, meta, i);
    byte[] value = Arrays.copyOfRange(it.data(), valueStart, it.valueOffset() + it.valueLength());
    return new Lookup(trailer >>> 8, kind, value, meta[0], meta[1]);
  }

  /**
   * Decodes the version and expiry at the start of the current entry's value field into
   * {@code meta}; returns the offset of the value itself. REQUIRES: {@link #entriesHaveMeta}.
   */
  private int decodeMeta(Block.Iter it, long[] meta, int block) {
    int[] pos = {it.valueOffset()};
    try {
      SstableFormat.getEntryMeta(it.data(), pos, it.valueOffset() + it.valueLength(), meta);
    } catch (IllegalArgumentException e) {
      throw new CorruptionException(path, blockOffsets[block], "bad entry version or expiry: " + e.getMessage());
    }
    return pos[0];
  }

  private ValueKind kindOf(long trailer, int block) {
    ValueKind kind = ValueKind.fromCode((int) (trailer & 0xFF));
    if (kind == null) {
      throw new CorruptionException(path, blockOffsets[block], "unknown value kind " + (trailer & 0xFF));
    }
    return kind;
  }

  /** A read-ahead window for sequential scans (compaction), so they read large chunks. */
  static final class ReadAhead {
    byte[] buf;
    long start;
    int len;
  }

  /** Per-thread buffer of point lookups: a block is read or copied from the cache into it. */
  private static final ThreadLocal<BlockBuffer> GET_BUFFER = ThreadLocal.withInitial(BlockBuffer::new);

  /**
   * The verified contents of the stored block read from {@code offset} into {@code buf[0, size+5)}:
   * {@code buf} itself when uncompressed (contents in {@code [0, size)}), else a decoded array.
   */
  private byte[] contentsInPlace(long offset, byte[] buf, int size) {
    if ((buf[size] & 0xFF) == SstableFormat.COMPRESSION_NONE) {
      verifyStored(path, offset, buf, 0, size);
      return buf;
    }
    return decodeStored(path, offset, buf, 0, size);
  }

  private Block parseBlock(long offset, byte[] raw, int len) {
    try {
      return new Block(raw, len);
    } catch (IllegalArgumentException e) {
      throw new CorruptionException(path, offset, "bad data block: " + e.getMessage());
    }
  }

  /** Checks the CRC of stored contents at {@code buf[off, off+size+5)}. */
  private static void verifyStored(Path path, long fileOffset, byte[] buf, int off, int size) {
    int type = buf[off + size] & 0xFF;
    int expected = FixedLE.getInt(buf, off + size + 1);
    int actual = SstableFormat.blockCrc(buf, off, size, type);
    if (expected != actual) {
      throw new CorruptionException(
          path, fileOffset,
          String.format("block checksum mismatch (stored %08x, computed %08x, %d bytes)", expected, actual, size));
    }
  }

  /**
   * Block {@code i}, in {@code buf} (valid until the buffer's next use): copied from the cache, or
   * read from the file and checked, then offered to the cache (which admits it or not, see
   * {@link BlockCache#admit}), except by a sequential cursor ({@code ra} not null: compaction),
   * which reads through its read-ahead window in large chunks and does not fill the cache. A
   * point lookup's buffer is its thread's, a cursor's its own, so reading a block allocates none
   * (but for a compressed block's decoded contents).
   */
  private Block readBlock(int i, ReadAhead ra, BlockBuffer buf) throws IOException {
    long offset = blockOffsets[i];
    int cached = cache.get(fileNum, offset, buf);
    if (cached >= 0) {
      return parseBlock(offset, buf.bytes(), cached);
    }
    int size = blockSizes[i];
    int total = size + SstableFormat.BLOCK_TRAILER_BYTES;
    byte[] raw;
    int len;
    if (ra != null) {
      if (ra.buf == null || offset < ra.start || offset + total > ra.start + ra.len) {
        int want = (int) Math.min(Math.max(READAHEAD_BYTES, total), fileSize - offset);
        if (ra.buf == null || ra.buf.length < want) {
          ra.buf = new byte[Math.max(want, READAHEAD_BYTES)];
        }
        readAt(ra.buf, want, offset);
        ra.start = offset;
        ra.len = want;
      }
      raw = decodeStored(path, offset, ra.buf, (int) (offset - ra.start), size);
      return parseBlock(offset, raw, raw.length);
    }
    byte[] b = buf.ensure(total);
    readAt(b, total, offset);
    raw = contentsInPlace(offset, b, size);
    len = raw == b ? size : raw.length;
    Block block = parseBlock(offset, raw, len);
    if (cache.admit(fileNum, offset)) {
      cache.put(fileNum, offset, raw, len);
    }
    return block;
  }

  private void readAt(byte[] buf, int len, long offset) throws IOException {
    OpenFiles.Handle h = files.acquire(fileNum);
    try {
      h.file.readFully(ByteBuffer.wrap(buf, 0, len), offset);
    } catch (EOFException e) {
      throw new CorruptionException(path, offset, "truncated SSTable: " + e.getMessage());
    } finally {
      files.release(h);
    }
  }

  /**
   * A cursor over all entries. {@code sequential} cursors (compaction) read ahead in large chunks
   * and do not fill the block cache.
   */
  public InternalCursor newCursor(boolean sequential) {
    return new SstableCursor(sequential);
  }

  /** Thread safety: confined. */
  private final class SstableCursor implements InternalCursor {
    private final boolean sequential;
    private final ReadAhead ra;
    private final BlockBuffer buf = new BlockBuffer();
    private int block = -1;
    private Block.Iter it;
    private long trailer;
    private final long[] meta = new long[2];
    private int valueStart;

    SstableCursor(boolean sequential) {
      this.sequential = sequential;
      this.ra = sequential ? new ReadAhead() : null;
    }

    @Override
    public boolean isValid() {
      return it != null && it.isValid();
    }

    @Override
    public void seekToFirst() throws IOException {
      openBlock(0);
      if (it != null) {
        it.seekToFirst();
      }
      skipEmpty();
    }

    @Override
    public void seek(byte[] userKey, long seqNum) throws IOException {
      byte[] target = InternalKey.seekKey(userKey, seqNum).encode();
      openBlock(findBlock(target, target.length));
      if (it != null) {
        try {
          it.seek(target, target.length);
        } catch (IllegalArgumentException e) {
          throw new CorruptionException(path, blockOffsets[block], "bad data block: " + e.getMessage());
        }
      }
      skipEmpty();
    }

    @Override
    public void next() throws IOException {
      try {
        it.next();
      } catch (IllegalArgumentException e) {
        throw new CorruptionException(path, blockOffsets[block], "bad data block: " + e.getMessage());
      }
      skipEmpty();
    }

    private void openBlock(int i) throws IOException {
      block = i;
      if (i >= indexKeys.length) {
        it = null;
        return;
      }
      try {
        it = readBlock(i, ra, buf).iterator();
      } catch (IllegalArgumentException e) {
        throw new CorruptionException(path, blockOffsets[i], "bad data block: " + e.getMessage());
      }
    }

    private void skipEmpty() throws IOException {
      try {
        while (it != null && !it.isValid()) {
          openBlock(block + 1);
          if (it != null) {
            it.seekToFirst();
          }
        }
        if (it != null) {
          trailer = it.trailer();
          kindOf(trailer, block);
          if (entriesHaveMeta) {
            valueStart = decodeMeta(it, meta, block);
          } else {
            valueStart = it.valueOffset();
          }
        }
      } catch (IllegalArgumentException e) {
        throw new CorruptionException(path, blockOffsets[block], "bad data block: " + e.getMessage());
      }
    }

    @Override
    public byte[] userKey() {
      return it.userKey();
    }

    @Override
    public long seqNum() {
      return trailer >>> 8;
    }

    @Override
    public ValueKind kind() {
      return ValueKind.fromCode((int) (trailer & 0xFF));
    }

    @Override
    public long version() {
      return entriesHaveMeta ? meta[0] : 0;
    }

    @Override
    public long expiresAt() {
      return entriesHaveMeta ? meta[1] : Entry.NO_EXPIRY;
    }

    @Override
    public byte[] value() {
      return Arrays.copyOfRange(it.data(), valueStart, it.valueOffset() + it.valueLength());
    }

    @Override
    public void close() {
      it = null;
    }
  }
}
