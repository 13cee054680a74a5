package org.kvstore.engine.memory;

import java.util.List;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.PropertySpec;
import org.kvstore.spi.TableEngine;

/**
 * The {@code memory} engine: a concurrent skip list in the heap. The memory-only baseline of the
 * seeds. <b>Not durable</b>: its tables are empty after every restart, and its writes skip the
 * write-ahead log.
 *
 * <p>Thread safety: stateless.
 */
public final class MemoryEngine implements TableEngine {
  public static final String NAME = "memory";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean durable() {
    return false;
  }

  @Override
  public List<PropertySpec<?>> properties() {
    return List.of();
  }

  @Override
  public EngineTable open(EngineContext context) {
    return new MemoryTable(context.clock());
  }
}
