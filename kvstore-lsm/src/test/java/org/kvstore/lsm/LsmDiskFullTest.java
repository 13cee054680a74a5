package org.kvstore.lsm;

import java.util.Properties;
import org.kvstore.testkit.DiskFullContract;

/**
 * The kit's full-disk rounds on small memtables, files and levels, so that the space often runs out
 * in a flush or a compaction rather than in a log append.
 */
class LsmDiskFullTest extends DiskFullContract {
  @Override
  protected String engineName() {
    return LsmEngine.NAME;
  }

  @Override
  protected Properties tableProperties() {
    return LsmPowerLossTest.smallSizes();
  }
}
