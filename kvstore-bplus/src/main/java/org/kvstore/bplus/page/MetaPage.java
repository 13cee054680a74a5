package org.kvstore.bplus.page;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.kvstore.CorruptionException;
import org.kvstore.codec.FixedLE;

/**
 * One meta page (slot 0 or 1; docs/format/bplus.md section 3.1): the root of one checkpoint.
 *
 * <p>Thread safety: immutable.
 */
public record MetaPage(
    int pageSize,
    long checkpointSeq,
    long checkpointLsn,
    long rootPageId,
    int treeHeight,
    long entryCount,
    long logicalPages,
    long pageTableHead,
    long nextChainId) {

  static final byte[] MAGIC = "KVBPTREE".getBytes(StandardCharsets.US_ASCII);

  /** The slot this checkpoint's meta page is written to. */
  public long slot() {
    return checkpointSeq % 2;
  }

  /** Encodes into {@code page} (its length is the page size), sealed with its CRC. */
  public void encodeTo(byte[] page) {
    PageFormat.initHeader(page, PageType.META, slot());
    System.arraycopy(MAGIC, 0, page, 16, 8);
    FixedLE.putInt(page, 24, pageSize);
    FixedLE.putLong(page, 32, checkpointSeq);
    FixedLE.putLong(page, 40, checkpointLsn);
    FixedLE.putLong(page, 48, rootPageId);
    FixedLE.putInt(page, 56, treeHeight);
    FixedLE.putLong(page, 64, entryCount);
    FixedLE.putLong(page, 72, logicalPages);
    FixedLE.putLong(page, 80, pageTableHead);
    FixedLE.putLong(page, 88, nextChainId);
    PageFormat.seal(page);
  }

  /**
   * Decodes the meta page read from {@code slot}.
   *
   * @throws CorruptionException if the page fails its checks
   */
  public static MetaPage decodeFrom(byte[] page, Path file, long slot) {
    PageFormat.verify(page, file, slot, PageType.META, slot);
    if (!Arrays.equals(page, 16, 24, MAGIC, 0, 8)) {
      throw new CorruptionException(file, slot * page.length, "meta page " + slot + ": bad magic");
    }
    int pageSize = FixedLE.getInt(page, 24);
    if (pageSize != page.length) {
      throw new CorruptionException(
          file, slot * page.length,
          "meta page " + slot + ": page size " + pageSize + ", opened with " + page.length);
    }
    return new MetaPage(
        pageSize, FixedLE.getLong(page, 32), FixedLE.getLong(page, 40), FixedLE.getLong(page, 48),
        FixedLE.getInt(page, 56), FixedLE.getLong(page, 64), FixedLE.getLong(page, 72),
        FixedLE.getLong(page, 80), FixedLE.getLong(page, 88));
  }
}
