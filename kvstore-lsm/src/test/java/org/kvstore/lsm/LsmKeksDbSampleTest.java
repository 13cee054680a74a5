package org.kvstore.lsm;

import java.util.Properties;
import org.kvstore.TableEngineType;
import org.kvstore.testkit.KeksDbSampleContract;

/** The KeksDB README sample on the LSM engine, its properties mapped to ours. */
class LsmKeksDbSampleTest extends KeksDbSampleContract {
  @Override
  protected String engineName() {
    return TableEngineType.LSM.toString();
  }

  @Override
  protected Properties sampleProperties() {
    // KeksDB: MEM_CACHE_SIZE = 1_000_000, BLOOM_FILTER_FALSE_POSITIVE_RATE = 0.1
    Properties p = new Properties();
    p.put(LsmOptions.MEMTABLE_SIZE.name(), 1_000_000);
    p.put(LsmOptions.BLOOM_FP_RATE.name(), 0.1);
    return p;
  }
}
