package org.kvstore.lsm;

import java.io.IOException;
import java.util.List;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.PropertySpec;
import org.kvstore.spi.TableEngine;

/**
 * The {@code lsm} engine: a log-structured merge tree per table (memtable, SSTables with bloom
 * filters, leveled compaction). Durable. See {@link LsmTable} for the design and
 * docs/format/{sstable,manifest,bloom}.md for the files.
 *
 * <p>Thread safety: stateless.
 */
public final class LsmEngine implements TableEngine {
  public static final String NAME = "lsm";

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
    return LsmTable.open(context, LsmOptions.from(context.properties()));
  }
}
