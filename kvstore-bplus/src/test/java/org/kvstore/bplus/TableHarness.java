package org.kvstore.bplus;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.StoreOptions;
import org.kvstore.io.FileSystem;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.TableProperties;

/**
 * Opens {@link BPlusTable}s directly (no store), with an LSN counter and a clock the test controls.
 */
final class TableHarness {
  final Path dir;
  final AtomicLong lsn = new AtomicLong();
  final Properties props = new Properties();
  Clock clock = Clock.systemUTC();

  TableHarness(Path dir) {
    this.dir = dir;
  }

  TableHarness with(String name, Object value) {
    props.put(name, value);
    return this;
  }

  TableHarness with(Clock c) {
    clock = c;
    return this;
  }

  BPlusTable open(FileSystem fs) throws IOException {
    TableProperties p = TableProperties.parse(BPlusEngine.NAME, BPlusOptions.PROPERTIES, props);
    return BPlusTable.open(new EngineContext(dir, fs, p, "test.t", lsn::get,
        StoreOptions.defaultBlockCacheBytes(), StoreOptions.defaultWriteBufferBytes(), clock));
  }
}
