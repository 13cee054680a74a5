package org.kvstore.bplus;

import org.kvstore.testkit.ExpiryReclaimContract;

class BPlusExpiryReclaimTest extends ExpiryReclaimContract {
  @Override
  protected String engineName() {
    return "bplus";
  }
}
