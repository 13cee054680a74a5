package org.kvstore.spi;

import java.nio.file.Path;
import java.time.Clock;
import java.util.function.LongSupplier;
import org.kvstore.io.FileSystem;

/**
 * What the store hands an engine when it opens a table.
 *
 * @param directory the table's own directory, existing; the engine keeps all its files in it and
 *     nothing else
 * @param fileSystem the file layer all of the engine's I/O must go through
 * @param properties the table's validated properties (the core's and the engine's)
 * @param tableName {@code db.table}, for log lines and error messages
 * @param appliedLsn the apply watermark: every mutation with a log sequence number at or below the
 *     value it returns has been applied to this table. An engine reads it at the moment it freezes
 *     the state it is about to persist (a memtable switch, the start of a checkpoint), and records it
 *     as that state's persisted LSN. Calling it also makes every log record written so far durable
 *     (it may fsync, so call it once per freeze, not per write): an engine may persist a state only
 *     after the log records in it are durable. It throws {@link org.kvstore.StorageIOException} when
 *     that sync fails.
 * @param sharedCacheBytes the bytes the store allows the cache its tables share
 *     ({@link org.kvstore.StoreOptions#blockCacheBytes}); an engine with such a cache sizes it from
 *     the first table's context it sees
 * @param sharedWriteBufferBytes the bytes the store allows the write buffers (memtables) of its
 *     tables together ({@link org.kvstore.StoreOptions#writeBufferBytes}; 0: no such bound); an
 *     engine with such buffers sizes the bound from the first table's context it sees
 * @param clock the store's clock: an entry whose expiry time is before its {@link Clock#millis()}
 *     is absent ({@link org.kvstore.Entry#isExpired})
 * @param spaceListener where the engine reports background work that failed for lack of disk space
 *     and can be retried ({@link EngineTable#retryAfterNoSpace()})
 *
 * <p>Thread safety: immutable; {@code appliedLsn} may be called from any thread.
 */
public record EngineContext(
    Path directory,
    FileSystem fileSystem,
    TableProperties properties,
    String tableName,
    LongSupplier appliedLsn,
    long sharedCacheBytes,
    long sharedWriteBufferBytes,
    Clock clock,
    SpaceListener spaceListener) {

  /** A context whose engine's out-of-space reports go nowhere. */
  public EngineContext(
      Path directory, FileSystem fileSystem, TableProperties properties, String tableName,
      LongSupplier appliedLsn, long sharedCacheBytes, long sharedWriteBufferBytes, Clock clock) {
    this(directory, fileSystem, properties, tableName, appliedLsn, sharedCacheBytes,
        sharedWriteBufferBytes, clock, SpaceListener.NONE);
  }

  /** A context on the system clock. */
  public EngineContext(
      Path directory, FileSystem fileSystem, TableProperties properties, String tableName,
      LongSupplier appliedLsn, long sharedCacheBytes, long sharedWriteBufferBytes) {
    this(directory, fileSystem, properties, tableName, appliedLsn, sharedCacheBytes,
        sharedWriteBufferBytes, Clock.systemUTC());
  }

  /**
   * A context with the default shared cache and write buffer sizes
   * ({@link org.kvstore.StoreOptions#defaultBlockCacheBytes},
   * {@link org.kvstore.StoreOptions#defaultWriteBufferBytes}).
   */
  public EngineContext(
      Path directory, FileSystem fileSystem, TableProperties properties, String tableName,
      LongSupplier appliedLsn) {
    this(directory, fileSystem, properties, tableName, appliedLsn,
        org.kvstore.StoreOptions.defaultBlockCacheBytes(),
        org.kvstore.StoreOptions.defaultWriteBufferBytes());
  }
}
