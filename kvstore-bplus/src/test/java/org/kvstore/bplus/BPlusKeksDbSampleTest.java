package org.kvstore.bplus;

import java.util.Properties;
import org.kvstore.TableEngineType;
import org.kvstore.testkit.KeksDbSampleContract;

/**
 * The KeksDB B+tree sample. Its {@code BTREE_ORDER = 400} has no counterpart here (our pages hold
 * as many cells as fit), so the sample sets the page size instead.
 */
class BPlusKeksDbSampleTest extends KeksDbSampleContract {
  @Override
  protected String engineName() {
    return TableEngineType.BPLUS.toString();
  }

  @Override
  protected Properties sampleProperties() {
    Properties p = new Properties();
    p.put("page.size", 4096);
    return p;
  }
}
