package org.kvstore.bplus;

import java.util.Properties;
import org.kvstore.testkit.EngineContractTest;

/** The engine test kit on small pages and a small buffer, so splits and evictions happen. */
class BPlusEngineContractTest extends EngineContractTest {
  @Override
  protected String engineName() {
    return BPlusEngine.NAME;
  }

  @Override
  protected Properties tableProperties() {
    Properties p = new Properties();
    p.put("page.size", "4KiB");
    p.put("buffer.size", "1MiB");
    return p;
  }
}
