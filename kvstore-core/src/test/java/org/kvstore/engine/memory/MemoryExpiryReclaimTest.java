package org.kvstore.engine.memory;

import org.kvstore.testkit.ExpiryReclaimContract;

class MemoryExpiryReclaimTest extends ExpiryReclaimContract {
  @Override
  protected String engineName() {
    return "memory";
  }
}
