package org.kvstore.engine.memory;

import org.kvstore.testkit.PowerLossContract;
import org.kvstore.testkit.SnapshotTestEngine;

class SnapshotEnginePowerLossTest extends PowerLossContract {
  @Override
  protected String engineName() {
    return SnapshotTestEngine.NAME;
  }
}
