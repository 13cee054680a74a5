package org.kvstore.lsm;

import java.util.Properties;
import org.kvstore.testkit.ExpiryContractTest;

/** The expiry and versions contract on the LSM engine, with a small memtable so flushes happen. */
class LsmExpiryContractTest extends ExpiryContractTest {
  @Override
  protected String engineName() {
    return "lsm";
  }

  @Override
  protected Properties tableProperties() {
    Properties p = new Properties();
    p.setProperty("memtable.size", "256KiB");
    return p;
  }
}
