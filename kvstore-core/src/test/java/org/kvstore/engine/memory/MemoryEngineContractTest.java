package org.kvstore.engine.memory;

import org.kvstore.testkit.EngineContractTest;

class MemoryEngineContractTest extends EngineContractTest {
  @Override
  protected String engineName() {
    return "memory";
  }
}
