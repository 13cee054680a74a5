package org.kvstore.engine.memory;

import org.kvstore.testkit.EngineContractTest;
import org.kvstore.testkit.SnapshotTestEngine;

/** The durable test engine passes the kit too: it is the reference for the persistence protocol. */
class SnapshotEngineContractTest extends EngineContractTest {
  @Override
  protected String engineName() {
    return SnapshotTestEngine.NAME;
  }
}
