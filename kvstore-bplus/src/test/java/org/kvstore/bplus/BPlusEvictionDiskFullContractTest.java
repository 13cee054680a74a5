package org.kvstore.bplus;

import java.util.List;
import java.util.Properties;
import org.kvstore.io.FaultInjectingFileSystem.NoSpaceAt;
import org.kvstore.testkit.DiskFullContract;

/**
 * The kit's full-disk rounds with a buffer pool of 16 pages, so that dirty pages are evicted in
 * the middle of tree changes: the space then runs out in the page file's spare-slot reservations
 * as well as in checkpoints and log appends, and the table heals without a restart.
 */
class BPlusEvictionDiskFullContractTest extends DiskFullContract {
  @Override
  protected String engineName() {
    return BPlusEngine.NAME;
  }

  @Override
  protected Properties tableProperties() {
    Properties p = new Properties();
    p.put("page.size", "4KiB");
    p.put("buffer.size", "64KiB");
    return p;
  }

  /** ENOSPC from writes only: a failed fsync makes the store read-only by design (T7). */
  @Override
  protected List<NoSpaceAt> noSpaceModes() {
    return List.of(NoSpaceAt.WRITE);
  }
}
