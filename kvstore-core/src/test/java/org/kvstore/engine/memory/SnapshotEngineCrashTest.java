package org.kvstore.engine.memory;

import org.kvstore.testkit.CrashRecoveryContract;
import org.kvstore.testkit.SnapshotTestEngine;

/** The child-JVM kill test on the durable test engine: exercises the log, recovery and checkpoints. */
class SnapshotEngineCrashTest extends CrashRecoveryContract {
  @Override
  protected String engineName() {
    return SnapshotTestEngine.NAME;
  }
}
