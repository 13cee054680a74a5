package org.kvstore;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;

/**
 * Options of a store, validated once here. Build with {@link #builder()}; {@link #defaults()} is
 * what {@code new KVStore(dir)} uses.
 *
 * @param fileSystem the file layer for all storage I/O (tests substitute a fault-injecting one)
 * @param maxKeyBytes longest key accepted (keys are 1 to this many bytes)
 * @param maxValueBytes longest value accepted
 * @param durability default durability of durable tables (a table may override it)
 * @param syncInterval how often {@link Durability#PERIODIC} fsyncs the log
 * @param recoveryMode how opening treats damage in the log
 * @param checkpointInterval time between background checkpoints ({@link Duration#ZERO}: never on time)
 * @param checkpointLogBytes log bytes written since the last checkpoint that trigger one (default
 *     256 MiB: at most about that much log to replay after a crash; RocksDB's
 *     {@code max_total_wal_size} defaults to four times its write buffers)
 * @param logSegmentBytes size at which the log rolls over to a new segment file
 * @param blockCacheBytes bytes of the cache of decoded blocks that the store's tables share (the
 *     {@code lsm} engine's block cache; a table given its own {@code block.cache.size} keeps a cache
 *     of its own instead); by default a quarter of the JVM's maximum heap, as HBase sizes its block
 *     cache from the heap; 0 caches nothing
 * @param writeBufferBytes bytes the write buffers of the store's tables may hold together (the
 *     {@code lsm} engine's memtables, active and waiting for their flush; RocksDB's
 *     {@code db_write_buffer_size}): past it the largest memtable is flushed early, and writes wait
 *     while the memtables hold all of it; by default a quarter of the JVM's maximum heap; 0: no
 *     bound beyond each table's own {@code memtable.size}
 * @param clock the store's time: expiry times are compared with its {@link Clock#millis()}, and
 *     time-to-live writes count from it (tests pass a clock they move; never sleep for an expiry)
 * @param expiryInterval time between two passes of active expiry, which removes expired entries
 *     nobody reads ({@link Duration#ZERO}: no active expiry; reads never see an expired entry anyway)
 * @param expiryEntriesPerPass the most entries one pass of active expiry examines per table (the
 *     bound on its work, see docs/decisions/0025-active-expiry.md)
 *
 * <p>Thread safety: immutable.
 */
public record StoreOptions(
    FileSystem fileSystem,
    int maxKeyBytes,
    int maxValueBytes,
    Durability durability,
    Duration syncInterval,
    RecoveryMode recoveryMode,
    Duration checkpointInterval,
    long checkpointLogBytes,
    long logSegmentBytes,
    long blockCacheBytes,
    long writeBufferBytes,
    Clock clock,
    Duration expiryInterval,
    int expiryEntriesPerPass) {

  public static final int MAX_KEY_BYTES_LIMIT = 16 << 20;

  public StoreOptions {
    Objects.requireNonNull(fileSystem, "fileSystem");
    Objects.requireNonNull(durability, "durability");
    Objects.requireNonNull(syncInterval, "syncInterval");
    Objects.requireNonNull(recoveryMode, "recoveryMode");
    Objects.requireNonNull(checkpointInterval, "checkpointInterval");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(expiryInterval, "expiryInterval");
    require(!expiryInterval.isNegative(), "expiryInterval must be >= 0, was " + expiryInterval);
    require(expiryEntriesPerPass >= 1,
        "expiryEntriesPerPass must be >= 1, was " + expiryEntriesPerPass);
    require(maxKeyBytes >= 1 && maxKeyBytes <= MAX_KEY_BYTES_LIMIT,
        "maxKeyBytes must be from 1 to " + MAX_KEY_BYTES_LIMIT + ", was " + maxKeyBytes);
    require(maxValueBytes >= 0, "maxValueBytes must be >= 0, was " + maxValueBytes);
    require(!syncInterval.isNegative() && !syncInterval.isZero(),
        "syncInterval must be positive, was " + syncInterval);
    require(!checkpointInterval.isNegative(),
        "checkpointInterval must be >= 0, was " + checkpointInterval);
    require(checkpointLogBytes >= 1 << 20,
        "checkpointLogBytes must be >= 1 MiB, was " + checkpointLogBytes);
    require(logSegmentBytes >= 64 << 10,
        "logSegmentBytes must be >= 64 KiB, was " + logSegmentBytes);
    require(blockCacheBytes >= 0, "blockCacheBytes must be >= 0, was " + blockCacheBytes);
    require(writeBufferBytes == 0 || writeBufferBytes >= 1 << 20,
        "writeBufferBytes must be 0 (no bound) or >= 1 MiB, was " + writeBufferBytes);
  }

  public static StoreOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.fileSystem = fileSystem;
    b.maxKeyBytes = maxKeyBytes;
    b.maxValueBytes = maxValueBytes;
    b.durability = durability;
    b.syncInterval = syncInterval;
    b.recoveryMode = recoveryMode;
    b.checkpointInterval = checkpointInterval;
    b.checkpointLogBytes = checkpointLogBytes;
    b.logSegmentBytes = logSegmentBytes;
    b.blockCacheBytes = blockCacheBytes;
    b.writeBufferBytes = writeBufferBytes;
    b.clock = clock;
    b.expiryInterval = expiryInterval;
    b.expiryEntriesPerPass = expiryEntriesPerPass;
    return b;
  }

  /** A quarter of the JVM's maximum heap, at least 8 MiB. */
  public static long defaultBlockCacheBytes() {
    return Math.max(8L << 20, Runtime.getRuntime().maxMemory() / 4);
  }

  /** A quarter of the JVM's maximum heap, at least 8 MiB. */
  public static long defaultWriteBufferBytes() {
    return Math.max(8L << 20, Runtime.getRuntime().maxMemory() / 4);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** Mutable builder; {@link #build()} validates. Thread safety: confined. */
  public static final class Builder {
    private FileSystem fileSystem = LocalFileSystem.INSTANCE;
    private int maxKeyBytes = 64 << 10;
    private int maxValueBytes = 512 << 20;
    private Durability durability = Durability.SYNC;
    private Duration syncInterval = Duration.ofSeconds(1);
    private RecoveryMode recoveryMode = RecoveryMode.POINT_IN_TIME;
    private Duration checkpointInterval = Duration.ofSeconds(60);
    private long checkpointLogBytes = 256L << 20;
    private long logSegmentBytes = 32L << 20;
    private long blockCacheBytes = defaultBlockCacheBytes();
    private long writeBufferBytes = defaultWriteBufferBytes();
    private Clock clock = Clock.systemUTC();
    private Duration expiryInterval = Duration.ofMillis(100);
    private int expiryEntriesPerPass = 20_000;

    private Builder() {}

    public Builder fileSystem(FileSystem v) {
      fileSystem = v;
      return this;
    }

    public Builder maxKeyBytes(int v) {
      maxKeyBytes = v;
      return this;
    }

    public Builder maxValueBytes(int v) {
      maxValueBytes = v;
      return this;
    }

    public Builder durability(Durability v) {
      durability = v;
      return this;
    }

    public Builder syncInterval(Duration v) {
      syncInterval = v;
      return this;
    }

    public Builder recoveryMode(RecoveryMode v) {
      recoveryMode = v;
      return this;
    }

    public Builder checkpointInterval(Duration v) {
      checkpointInterval = v;
      return this;
    }

    public Builder checkpointLogBytes(long v) {
      checkpointLogBytes = v;
      return this;
    }

    public Builder logSegmentBytes(long v) {
      logSegmentBytes = v;
      return this;
    }

    public Builder blockCacheBytes(long v) {
      blockCacheBytes = v;
      return this;
    }

    public Builder writeBufferBytes(long v) {
      writeBufferBytes = v;
      return this;
    }

    public Builder clock(Clock v) {
      clock = v;
      return this;
    }

    public Builder expiryInterval(Duration v) {
      expiryInterval = v;
      return this;
    }

    public Builder expiryEntriesPerPass(int v) {
      expiryEntriesPerPass = v;
      return this;
    }

    public StoreOptions build() {
      return new StoreOptions(
          fileSystem, maxKeyBytes, maxValueBytes, durability, syncInterval, recoveryMode,
          checkpointInterval, checkpointLogBytes, logSegmentBytes, blockCacheBytes,
          writeBufferBytes, clock, expiryInterval, expiryEntriesPerPass);
    }
  }
}
