package org.kvstore.bplus;

import java.util.List;
import java.util.Properties;
import org.kvstore.io.FaultInjectingFileSystem.NoSpaceAt;
import org.kvstore.testkit.DiskFullContract;

/**
 * The kit's full-disk rounds on small pages, with a buffer pool that holds the dirty pages between
 * checkpoints: the space then runs out in checkpoints, log appends and the page file's spare-slot
 * reservations ({@link BPlusTable}). {@link BPlusEvictionDiskFullContractTest} runs them on a pool
 * that evicts.
 */
class BPlusDiskFullTest extends DiskFullContract {
  @Override
  protected String engineName() {
    return BPlusEngine.NAME;
  }

  @Override
  protected Properties tableProperties() {
    Properties p = new Properties();
    p.put("page.size", "4KiB");
    p.put("buffer.size", "64MiB");
    return p;
  }

  /** The page file is closed only with the table, so ENOSPC from close never reaches it. */
  @Override
  protected List<NoSpaceAt> noSpaceModes() {
    return List.of(NoSpaceAt.WRITE, NoSpaceAt.WRITE, NoSpaceAt.WRITE, NoSpaceAt.SYNC);
  }
}
