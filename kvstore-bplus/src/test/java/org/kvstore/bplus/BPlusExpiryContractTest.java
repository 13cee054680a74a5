package org.kvstore.bplus;

import java.util.Properties;
import org.kvstore.testkit.ExpiryContractTest;

/** The expiry and versions contract on the B+tree, with small pages so reclaims meet splits. */
class BPlusExpiryContractTest extends ExpiryContractTest {
  @Override
  protected String engineName() {
    return "bplus";
  }

  @Override
  protected Properties tableProperties() {
    Properties p = new Properties();
    p.setProperty("page.size", "4KiB");
    return p;
  }
}
