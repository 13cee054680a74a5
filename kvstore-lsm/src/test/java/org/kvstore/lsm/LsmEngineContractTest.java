package org.kvstore.lsm;

import java.util.Properties;
import org.kvstore.testkit.EngineContractTest;

/** The engine test kit on the LSM engine, with small sizes so flushes and compactions run. */
class LsmEngineContractTest extends EngineContractTest {
  @Override
  protected String engineName() {
    return LsmEngine.NAME;
  }

  @Override
  protected Properties tableProperties() {
    Properties p = new Properties();
    p.put("memtable.size", "256KiB");
    p.put("block.size", "1KiB");
    p.put("target.file.size", "256KiB");
    p.put("level1.max.size", "1MiB");
    p.put("level0.compaction.trigger", "2");
    p.put("block.cache.size", "1MiB");
    p.put("max.open.files", "16");
    return p;
  }
}
