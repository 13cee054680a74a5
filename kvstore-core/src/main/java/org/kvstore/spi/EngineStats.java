package org.kvstore.spi;

import java.util.Map;

/**
 * A table's statistics at one moment.
 *
 * @param entryEstimate approximate number of live keys
 * @param bytesOnDisk bytes of the table's files
 * @param details engine-specific counters by name (for example {@code buffer.hit.rate.permille},
 *     {@code tree.height}, {@code write.amplification.x100}), in a stable order
 *
 * <p>Thread safety: immutable.
 */
public record EngineStats(long entryEstimate, long bytesOnDisk, Map<String, Long> details) {
  public EngineStats {
    details = Map.copyOf(details);
  }
}
