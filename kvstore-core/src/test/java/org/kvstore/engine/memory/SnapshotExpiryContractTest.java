package org.kvstore.engine.memory;

import org.kvstore.testkit.ExpiryContractTest;
import org.kvstore.testkit.SnapshotTestEngine;

class SnapshotExpiryContractTest extends ExpiryContractTest {
  @Override
  protected String engineName() {
    return SnapshotTestEngine.NAME;
  }
}
