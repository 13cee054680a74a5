package org.kvstore.engine.memory;

import org.kvstore.testkit.CrashRecoveryContract;
import org.kvstore.testkit.SnapshotTestEngine;

/** The child-JVM kill test on the durable test engine: exercises the log, recovery and checkpoints. */
class SnapshotEngineCrashTest extends CrashRecoveryContract {
  @Override
  protected String engineName() {
    return SnapshotTestEngine.NAME;
  }

  /**
   * The snapshot test engine holds every value in the heap and writes its whole map through one
   * buffer at each checkpoint. The 500 cycles of {@code -Pcrash} leave about 200,000 keys of 2.9 KB
   * on average (one value in 20 is 33-73 KB), about 0.6 GB, held twice during a checkpoint: with
   * 512 MB the worker ran out of heap at cycle 249 and died before opening the store.
   */
  @Override
  protected String workerMaxHeap() {
    return "2g";
  }
}
