package org.kvstore.bplus;

import java.util.List;
import org.kvstore.InvalidArgumentException;
import org.kvstore.bplus.page.PageFormat;
import org.kvstore.spi.PropertySpec;
import org.kvstore.spi.TableProperties;

/**
 * The table properties of the {@code bplus} engine, validated.
 *
 * @param pageSizeBytes the page size: a power of two from 4 KiB to 64 KiB
 * @param bufferBytes the buffer pool's size (at least 8 pages)
 * @param cleanupThreshold the pool occupancy past which misses evict
 *
 * <p>Thread safety: immutable.
 */
public record BPlusOptions(int pageSizeBytes, long bufferBytes, double cleanupThreshold) {

  public static final PropertySpec<Long> PAGE_SIZE =
      PropertySpec.ofBytes(
          "page.size", 8 << 10, PageFormat.MIN_PAGE_SIZE, PageFormat.MAX_PAGE_SIZE,
          "size of a B+tree page, a power of two (fixed when the table is created)");

  public static final PropertySpec<Long> BUFFER_SIZE =
      PropertySpec.ofBytes(
          "buffer.size", 256L << 20, 32 << 10, 1L << 40,
          "bytes of the page buffer (buffer pool); at least 8 pages");

  public static final PropertySpec<Double> BUFFER_CLEANUP_THRESHOLD =
      PropertySpec.ofDouble(
          "buffer.cleanup.threshold", 0.8, 0.0, 1.0,
          "buffer occupancy past which page misses evict pages (CLOCK)");

  public static final List<PropertySpec<?>> PROPERTIES =
      List.of(PAGE_SIZE, BUFFER_SIZE, BUFFER_CLEANUP_THRESHOLD);

  public BPlusOptions {
    if (!PageFormat.isValidPageSize(pageSizeBytes)) {
      throw new InvalidArgumentException(
          PAGE_SIZE.name(), "must be a power of two from 4 KiB to 64 KiB, was " + pageSizeBytes);
    }
    if (bufferBytes < 8L * pageSizeBytes) {
      throw new InvalidArgumentException(
          BUFFER_SIZE.name(),
          "must hold at least 8 pages of " + pageSizeBytes + " bytes, was " + bufferBytes);
    }
    if (!(cleanupThreshold > 0 && cleanupThreshold <= 1)) {
      throw new InvalidArgumentException(
          BUFFER_CLEANUP_THRESHOLD.name(), "must be above 0 and at most 1, was " + cleanupThreshold);
    }
  }

  public static BPlusOptions from(TableProperties p) {
    return new BPlusOptions(
        (int) (long) p.get(PAGE_SIZE), p.get(BUFFER_SIZE), p.get(BUFFER_CLEANUP_THRESHOLD));
  }
}
