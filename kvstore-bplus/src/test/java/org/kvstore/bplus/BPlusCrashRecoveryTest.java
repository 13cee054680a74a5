package org.kvstore.bplus;

import java.util.Properties;
import org.kvstore.testkit.CrashRecoveryContract;

/** The kit's child-JVM SIGKILL test on small pages and a small buffer (evictions, checkpoints). */
class BPlusCrashRecoveryTest extends CrashRecoveryContract {
  @Override
  protected String engineName() {
    return BPlusEngine.NAME;
  }

  @Override
  protected Properties tableProperties() {
    Properties p = new Properties();
    p.put("page.size", "4KiB");
    p.put("buffer.size", "256KiB");
    return p;
  }
}
