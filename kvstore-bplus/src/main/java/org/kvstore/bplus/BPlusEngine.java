package org.kvstore.bplus;

import java.io.IOException;
import java.util.List;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.PropertySpec;
import org.kvstore.spi.TableEngine;

/**
 * The {@code bplus} engine: a B+tree of fixed-size pages in one file per table, cached in a
 * bounded buffer pool, persisted by crash-consistent checkpoints (shadow paging). Formats and
 * protocols: {@code docs/format/bplus.md}.
 *
 * <p>Thread safety: stateless.
 */
public final class BPlusEngine implements TableEngine {
  public static final String NAME = "bplus";

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
    return BPlusOptions.PROPERTIES;
  }

  @Override
  public EngineTable open(EngineContext context) throws IOException {
    return BPlusTable.open(context);
  }
}
