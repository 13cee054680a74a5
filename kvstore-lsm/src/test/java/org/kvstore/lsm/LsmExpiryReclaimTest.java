package org.kvstore.lsm;

import org.kvstore.testkit.ExpiryReclaimContract;

class LsmExpiryReclaimTest extends ExpiryReclaimContract {
  @Override
  protected String engineName() {
    return "lsm";
  }
}
