package org.kvstore.bplus.page;

import static org.kvstore.bplus.page.PageFormat.i32;
import static org.kvstore.bplus.page.PageFormat.i64;
import static org.kvstore.bplus.page.PageFormat.putI32;
import static org.kvstore.bplus.page.PageFormat.putI64;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.kvstore.CorruptionException;

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
    putI32(page, 24, pageSize);
    putI64(page, 32, checkpointSeq);
    putI64(page, 40, checkpointLsn);
    putI64(page, 48, rootPageId);
    putI32(page, 56, treeHeight);
    putI64(page, 64, entryCount);
    putI64(page, 72, logicalPages);
    putI64(page, 80, pageTableHead);
    putI64(page, 88, nextChainId);
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
    int pageSize = i32(page, 24);
    if (pageSize != page.length) {
      throw new CorruptionException(
          file, slot * page.length,
          "meta page " + slot + ": page size " + pageSize + ", opened with " + page.length);
    }
    return new MetaPage(
        pageSize, i64(page, 32), i64(page, 40), i64(page, 48), i32(page, 56), i64(page, 64),
        i64(page, 72), i64(page, 80), i64(page, 88));
  }
}
