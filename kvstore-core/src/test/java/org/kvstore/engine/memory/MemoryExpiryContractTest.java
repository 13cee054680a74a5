package org.kvstore.engine.memory;

import org.kvstore.testkit.ExpiryContractTest;

class MemoryExpiryContractTest extends ExpiryContractTest {
  @Override
  protected String engineName() {
    return "memory";
  }
}
