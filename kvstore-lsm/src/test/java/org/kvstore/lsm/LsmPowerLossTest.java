package org.kvstore.lsm;

import java.util.Properties;
import org.kvstore.testkit.PowerLossContract;

/**
 * The kit's simulated power loss on a 64 KiB memtable, small blocks, files and levels, so that the
 * crash clone is often taken in the middle of a flush or a compaction.
 */
class LsmPowerLossTest extends PowerLossContract {
  @Override
  protected String engineName() {
    return LsmEngine.NAME;
  }

  @Override
  protected Properties tableProperties() {
    return smallSizes();
  }

  /** Sizes that make flushes and compactions frequent under the kit's write rates. */
  static Properties smallSizes() {
    Properties p = new Properties();
    p.put("memtable.size", "64KiB");
    p.put("block.size", "1KiB");
    p.put("target.file.size", "32KiB");
    p.put("level1.max.size", "128KiB");
    p.put("level0.compaction.trigger", "2");
    p.put("level.size.ratio", "4");
    p.put("block.cache.size", "256KiB");
    p.put("max.open.files", "8");
    return p;
  }
}
