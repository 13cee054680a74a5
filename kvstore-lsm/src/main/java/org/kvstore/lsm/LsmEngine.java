package org.kvstore.lsm;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.util.List;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.SharedBlockCache;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.PropertySpec;
import org.kvstore.spi.TableEngine;

/**
 * The {@code lsm} engine: a log-structured merge tree per table (memtable, SSTables with bloom
 * filters, leveled compaction). Durable. See {@link LsmTable} for the design and
 * docs/format/{sstable,manifest,bloom}.md for the files.
 *
 * <p>The store's tables share one {@link SharedBlockCache} of
 * {@link EngineContext#sharedCacheBytes()}, made when the first table opens; a table with a
 * {@code block.cache.size} of its own has a cache of that size instead. Their memtables share one
 * {@link WriteBufferBudget} of {@link EngineContext#sharedWriteBufferBytes()}, made the same way.
 * (A store loads its own engine instances, so each store has its own cache and budget.)
 *
 * <p>Thread safety: thread-safe; the shared cache and budget are made once, guarded by the
 * instance's monitor.
 */
public final class LsmEngine implements TableEngine {
  public static final String NAME = "lsm";

  /** Guarded by {@code this}. */
  @GuardedBy("this")
  private SharedBlockCache sharedCache;
  /** Guarded by {@code this}. */
  @GuardedBy("this")
  private WriteBufferBudget budget;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean durable() {
    return true;
  }

  @Override
  public List<PropertySpec<?>> properties() {
    return LsmOptions.PROPERTIES;
  }

  @Override
  public EngineTable open(EngineContext context) throws IOException {
    LsmOptions options = LsmOptions.from(context.properties());
    BlockCache cache =
        options.blockCacheBytes() > 0
            ? new BlockCache(options.blockCacheBytes(), options.rowCache())
            : sharedCache(context.sharedCacheBytes()).newView(options.rowCache());
    return LsmTable.open(context, options, cache, budget(context.sharedWriteBufferBytes()));
  }

  /** The budget of this engine's tables, or {@code null} before the first table opens. */
  synchronized WriteBufferBudget writeBufferBudget() {
    return budget;
  }

  /** The cache this engine's tables share, or {@code null} before the first such table opens. */
  synchronized SharedBlockCache sharedBlockCache() {
    return sharedCache;
  }

  private synchronized WriteBufferBudget budget(long bytes) {
    if (budget == null) {
      budget = new WriteBufferBudget(bytes);
    }
    return budget;
  }

  private synchronized SharedBlockCache sharedCache(long bytes) {
    if (sharedCache == null) {
      sharedCache = new SharedBlockCache(bytes);
    }
    return sharedCache;
  }
}
