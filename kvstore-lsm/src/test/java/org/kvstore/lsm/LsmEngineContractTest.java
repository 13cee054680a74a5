package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.kvstore.testkit.EngineContractTest;
import org.kvstore.testkit.EngineOptionSet;

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

  /**
   * The kit's sizes, and tiny ones: 16 KiB memtables, files and levels, so that the randomized test
   * flushes every few dozen writes, compacts through several levels and evicts open files and
   * cached blocks all the time, across its reopens.
   */
  @Override
  protected List<EngineOptionSet> optionMatrix() {
    Properties tiny = new Properties();
    tiny.put("memtable.size", "16KiB");
    tiny.put("block.size", "512");
    tiny.put("target.file.size", "16KiB");
    tiny.put("level1.max.size", "64KiB");
    tiny.put("level.size.ratio", "4");
    tiny.put("level0.compaction.trigger", "2");
    tiny.put("block.cache.size", "32KiB");
    tiny.put("max.open.files", "8");
    return List.of(
        EngineOptionSet.of("small", tableProperties()),
        EngineOptionSet.of("tiny-compacting", tiny)
            .withOperations(30_000)
            .withAfterRun(t -> {
              Map<String, Long> stats = t.info().engineStats();
              assertThat(stats.get("level.1.files") + stats.get("level.2.files"))
                  .as("compactions moved data below level 0: %s", stats)
                  .isPositive();
            }));
  }
}
