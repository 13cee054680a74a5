package org.kvstore.engine.memory;

import java.util.Properties;
import org.kvstore.TableEngineType;
import org.kvstore.testkit.KeksDbSampleContract;

class MemoryKeksDbSampleTest extends KeksDbSampleContract {
  @Override
  protected String engineName() {
    return TableEngineType.MEMORY.toString();
  }

  @Override
  protected Properties sampleProperties() {
    return new Properties();
  }
}
