package org.kvstore.bplus;

import java.util.Properties;
import org.kvstore.testkit.PowerLossContract;

/** The kit's simulated power loss on small pages and a small buffer (write-backs, checkpoints). */
class BPlusPowerLossTest extends PowerLossContract {
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
