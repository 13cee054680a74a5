package org.kvstore.lsm;

import java.util.Properties;
import org.kvstore.testkit.CrashRecoveryContract;

/**
 * The kit's child-JVM SIGKILL test on a 64 KiB memtable, small blocks, files and levels, so that
 * kills land during flushes, compactions and manifest rolls.
 */
class LsmCrashRecoveryTest extends CrashRecoveryContract {
  @Override
  protected String engineName() {
    return LsmEngine.NAME;
  }

  @Override
  protected Properties tableProperties() {
    return LsmPowerLossTest.smallSizes();
  }
}
