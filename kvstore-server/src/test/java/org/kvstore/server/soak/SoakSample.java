package org.kvstore.server.soak;

import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * One 10-second sample of a soak run: the server process's resources at the window's end and the
 * latencies of the requests completed in the window.
 *
 * @param elapsedSeconds seconds since the loaded run started, at the window's end
 * @param windowSeconds the window's length
 * @param heapAfterGcBytes heap used right after a full collection the sampler asked for
 * @param gcMillis how long that collection took, as the sampler saw it (the server was paused)
 * @param rssBytes resident set size ({@code VmRSS})
 * @param jvmDirectBytes the JVM's direct buffer pool ({@code jvm_buffer_memory_used_bytes{id="direct"}})
 * @param nettyDirectBytes Netty's pooled arenas ({@code netty_direct_memory_used_bytes})
 * @param openFds entries of {@code /proc/PID/fd}
 * @param storeFileFds those of them open on an existing file under the data directory (the store's
 *     live log segments, SSTables and page files, whose number follows the LSM's shape from flush to
 *     compaction); a descriptor on a deleted file is not one of them
 * @param threads {@code Threads} of {@code /proc/PID/status}
 * @param dataDirBytes bytes of every file under the data directory, the log included
 * @param walBytes bytes of the log segments ({@code wal/NNNNNN.log}, docs/format/wal.md)
 * @param memtableBytes the soak table's memtables on the heap ({@code kv_engine_stat} {@code
 *     memtable.bytes} less {@code memtable.arena.bytes}, the direct memory holding their values)
 * @param blockCacheBytes the block cache's contents ({@code stat="block.cache.bytes"})
 * @param spaceAmplification the soak table's files over its last level's ({@code stat="space.amplification.x100"} / 100)
 * @param errors requests of the window that failed (an error reply or a broken connection)
 * @param latencyMicros the window's request latencies, in microseconds
 */
record SoakSample(double elapsedSeconds, double windowSeconds, long heapAfterGcBytes, long gcMillis,
    long rssBytes, long jvmDirectBytes, long nettyDirectBytes, int openFds, int storeFileFds, int threads, long dataDirBytes,
    long walBytes, long memtableBytes, long blockCacheBytes, double spaceAmplification, long errors,
    Histogram latencyMicros) {

  static final List<String> CSV_COLUMNS = List.of("elapsed_s", "heap_after_gc_bytes", "gc_ms", "rss_bytes",
      "jvm_direct_bytes", "netty_direct_bytes", "open_fds", "store_file_fds", "threads", "data_dir_bytes", "wal_bytes", "memtable_bytes",
      "block_cache_bytes", "space_amplification", "requests",
      "errors", "throughput_per_s", "p50_us", "p99_us", "max_us");

  /**
   * The heap after a full collection less the memtables' heap part: they are bounded by a setting
   * and swing by several MiB as they fill and flush, which over a few minutes looks like a trend; a
   * leak anywhere else shows here. (The block cache's contents and the memtables' values are in
   * direct memory, outside the heap: the JVM's direct buffers and RSS show them.)
   */
  long heapOutsideCachesBytes() {
    return Math.max(0, heapAfterGcBytes - memtableBytes);
  }

  /** Descriptors on anything but a live store file: sockets, pipes, jars, deleted files. */
  int otherFds() {
    return openFds - storeFileFds;
  }

  long requests() {
    return latencyMicros.getTotalCount();
  }

  double throughputPerSecond() {
    return requests() / windowSeconds;
  }

  long p50Micros() {
    return latencyMicros.getValueAtPercentile(50);
  }

  long p99Micros() {
    return latencyMicros.getValueAtPercentile(99);
  }

  long maxMicros() {
    return latencyMicros.getMaxValue();
  }

  String csvLine() {
    return String.format(Locale.ROOT, "%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.2f,%d,%d,%.1f,%d,%d,%d",
        elapsedSeconds, heapAfterGcBytes, gcMillis, rssBytes, jvmDirectBytes, nettyDirectBytes, openFds, storeFileFds, threads,
        dataDirBytes, walBytes, memtableBytes, blockCacheBytes, spaceAmplification, requests(), errors, throughputPerSecond(), p50Micros(), p99Micros(), maxMicros());
  }
}
